//! `__svcProbe(what)` (feature `sandbox-probes`, for tests only): a script
//! tries, in its process, what the sandbox forbids, and reads what came of
//! it: `"pid"` answers the process id; `"environ"` reads
//! `/proc/self/environ`, `"open"` opens `/etc/passwd`, `"socket"` opens a
//! UDP socket, `"spawn"` starts `/bin/true`, `"kill"` signals process 1.
//! Each answers `ok: ...` or `denied: <the OS error>`.

use std::io;

use rquickjs::{Ctx, Function};

pub fn register(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    ctx.globals().set("__svcProbe", Function::new(ctx.clone(), |what: String| probe(&what)))
}

fn probe(what: &str) -> String {
    let tried: io::Result<String> = match what {
        "pid" => Ok(std::process::id().to_string()),
        "environ" => std::fs::read("/proc/self/environ").map(|b| format!("{} bytes", b.len())),
        "open" => std::fs::File::open("/etc/passwd").map(|_| "opened".into()),
        "socket" => std::net::UdpSocket::bind("127.0.0.1:0").map(|_| "bound".into()),
        "spawn" => std::process::Command::new("/bin/true").spawn().map(|c| format!("started {}", c.id())),
        // SAFETY: signal 0 only checks whether the signal could be sent.
        "kill" => match unsafe { libc::kill(1, 0) } {
            0 => Ok("signalled".into()),
            _ => Err(io::Error::last_os_error()),
        },
        other => return format!("unknown probe `{other}`"),
    };
    match tried {
        Ok(done) => format!("ok: {done}"),
        Err(e) => format!("denied: {e}"),
    }
}
