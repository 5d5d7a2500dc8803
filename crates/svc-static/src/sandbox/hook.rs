//! The pre-main hook (feature `sandbox-hook`): a program that links
//! svc-static and is started as `svc-static-sandbox sandbox` runs the
//! sandbox child ([`super::child::main`]) and exits, before its own `main`
//! runs. This makes every test and bench binary its own sandbox program,
//! as `svc sandbox` makes the `svc` binary (which does not need the hook).
//!
//! The child runs before `main` (glibc has run std's argument set-up; no
//! runtime of Rust's is needed: the child is one thread of plain calls).

use std::ffi::OsStr;

use super::launch::{SANDBOX_ARGV0, SANDBOX_COMMAND};

#[ctor::ctor(unsafe)]
fn become_the_sandbox_child() {
    let mut args = std::env::args_os();
    if args.next().as_deref() == Some(OsStr::new(SANDBOX_ARGV0))
        && args.next().as_deref() == Some(OsStr::new(SANDBOX_COMMAND))
        && args.next().is_none()
    {
        std::process::exit(i32::from(super::child::serve()));
    }
}
