//! svc-static's one test binary: the script's DOM (`dom_api`), whole runs
//! against a local site (`engine_runs`), runs held to their sites
//! (`confinement`), the same scripts on the browser engine and the static
//! engine (`compatibility`), the sandbox processes the static engine
//! runs scripts in (`sandbox`), and the Web Platform Tests' selectors suite
//! against the static engine and Chromium (`wpt_selectors`), and realistic
//! scripts on realistic pages on both engines (`realistic_corpus`).

mod compatibility;
mod confinement;
mod dom_api;
mod engine_runs;
mod realistic_corpus;
mod sandbox;
mod site;
mod wpt_selectors;
