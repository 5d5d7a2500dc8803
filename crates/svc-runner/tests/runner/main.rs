//! svc-runner's one test binary: the egress proxy over real sockets, and
//! proxy tiers (the egress proxy chained to upstream proxies, and the
//! engine running jobs on a tier on a real Chromium).

mod egress_proxy;
mod proxy_tiers;
mod stand_ins;
