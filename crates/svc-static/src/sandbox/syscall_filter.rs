//! The sandbox process's seccomp filter, installed once start-up is done
//! (`child::main`), for every thread of the process, with `no_new_privs`.
//!
//! Allowed: reading and writing the channel (descriptor 3; writes to 2,
//! which is /dev/null, for a panic's message), memory (`mmap` and
//! `mprotect` never executable), `futex`, the clocks, `getrandom`, signal
//! returns and masks, `close`, and the ways out: `exit`, `exit_group`, and
//! `tgkill` of this process alone (`abort`). Everything else fails with
//! `EPERM`: opening any file, sockets, `execve`, `fork`/`clone`, `ptrace`,
//! `kill`, `setuid` ... A filter that denies rather than kills keeps a
//! library's harmless probe (a `sched_getaffinity`, say) from ending a
//! run; what an attacker would need fails all the same.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

use super::child::CHANNEL_FD;

/// A rule that holds when argument `index` equals `value`.
fn arg_is(index: u8, value: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(index, SeccompCmpArgLen::Qword, SeccompCmpOp::Eq, value)?])
}

/// A rule that holds when argument `index` has none of `bits`.
fn arg_lacks(index: u8, bits: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(index, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(bits), 0)?])
}

/// The filter, compiled for this machine.
pub fn program() -> Result<BpfProgram, seccompiler::Error> {
    let channel = CHANNEL_FD as u64;
    let no_exec = libc::PROT_EXEC as u64;
    let pid = std::process::id() as u64;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    // The channel.
    for call in [libc::SYS_read, libc::SYS_recvfrom, libc::SYS_recvmsg, libc::SYS_readv] {
        rules.insert(call, vec![arg_is(0, channel)?]);
    }
    for call in [libc::SYS_write, libc::SYS_sendto, libc::SYS_sendmsg, libc::SYS_writev] {
        rules.insert(call, vec![arg_is(0, channel)?, arg_is(0, 2)?]);
    }
    // Memory, never executable.
    rules.insert(libc::SYS_mmap, vec![arg_lacks(2, no_exec)?]);
    rules.insert(libc::SYS_mprotect, vec![arg_lacks(2, no_exec)?]);
    // `abort` signals this process only.
    rules.insert(libc::SYS_tgkill, vec![arg_is(0, pid)?]);
    for call in [
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_brk,
        libc::SYS_madvise,
        libc::SYS_futex,
        libc::SYS_clock_gettime,
        libc::SYS_clock_getres,
        libc::SYS_gettimeofday,
        libc::SYS_getrandom,
        libc::SYS_rt_sigreturn,
        libc::SYS_rt_sigprocmask,
        libc::SYS_sigaltstack,
        libc::SYS_sched_yield,
        libc::SYS_getpid,
        libc::SYS_gettid,
        libc::SYS_close,
        libc::SYS_restart_syscall,
        libc::SYS_exit,
        libc::SYS_exit_group,
    ] {
        rules.insert(call, vec![]);
    }
    let arch = std::env::consts::ARCH.try_into().map_err(seccompiler::Error::Backend)?;
    let filter = SeccompFilter::new(rules, SeccompAction::Errno(libc::EPERM as u32), SeccompAction::Allow, arch)
        .map_err(seccompiler::Error::Backend)?;
    filter.try_into().map_err(seccompiler::Error::Backend)
}

/// Installs the filter on every thread of this process (it has one).
pub fn install() -> Result<(), seccompiler::Error> {
    seccompiler::apply_filter_all_threads(&program()?)
}
