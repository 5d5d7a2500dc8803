//! svc-runner's one test binary: the egress proxy over real sockets, proxy
//! tiers (the egress proxy chained to upstream proxies, and the engine
//! running jobs on a tier on a real Chromium), saved sessions and
//! `SVC.account` on a real Chromium, and confined runs (AI Fix's
//! candidates) held to their sites.

mod confinement;
mod egress_proxy;
mod page_capture;
mod proxy_tiers;
mod script_world;
mod sessions;
mod stand_ins;
