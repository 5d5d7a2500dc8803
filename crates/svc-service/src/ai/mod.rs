//! The AI features, over any Chat Completions model (`model`): the task
//! queue and its runner (`tasks`, `task_runner`), the wizard and script
//! generation (`authoring`), AI Fix, when it may act and the owner's
//! approval of its scripts (`fix`, `fix_policy`, `fix_review`), the digest
//! of a run (`digest`), the prompts and how an answer is read (`prompts`,
//! `model_answer`), what the calls cost (`spend`), and the engine and model
//! a process attaches (`attachments`).

pub mod attachments;
pub mod authoring;
pub mod digest;
pub mod fix;
pub mod fix_policy;
pub mod fix_review;
pub mod model;
pub mod model_answer;
pub mod prompts;
pub mod spend;
pub mod task_runner;
pub mod tasks;
