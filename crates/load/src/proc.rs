//! What the load generator reads of processes on this machine: a server's resident memory and
//! CPU time (`/proc/<pid>/status` and `/proc/<pid>/stat`, given `--server-pid`), and its own
//! file descriptor limit, raised so that one process can hold 10,000+ streams.

use rlimit::Resource;

/// Clock ticks per second of `/proc/<pid>/stat` (Linux's USER_HZ, fixed at 100 for user space).
const TICKS_PER_SEC: f64 = 100.0;

/// Resident memory and CPU time of one or more processes, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub rss_kb: u64,
    /// utime + stime, in clock ticks.
    pub cpu_ticks: u64,
}

impl Sample {
    pub fn cpu_secs(self) -> f64 {
        self.cpu_ticks as f64 / TICKS_PER_SEC
    }
}

/// `VmRSS` of a `/proc/<pid>/status` text, in kB.
fn rss_kb(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// utime + stime of a `/proc/<pid>/stat` text (fields 14 and 15; the command name, field 2,
/// may hold spaces, so fields are counted after its closing parenthesis).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The processes' figures now; `None` without pids or when one of them is gone.
pub fn sample(pids: &[u32]) -> Option<Sample> {
    if pids.is_empty() {
        return None;
    }
    let mut total = Sample::default();
    for pid in pids {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        total.rss_kb += rss_kb(&status)?;
        total.cpu_ticks += cpu_ticks(&stat)?;
    }
    Some(total)
}

/// Raises this process's open-file limit to at least `want` where it can: the soft limit up
/// to the hard one, and the hard one too when allowed (root). Returns the soft limit before
/// and after.
pub fn raise_fd_limit(want: u64) -> Result<(u64, u64), String> {
    let (soft, hard) = Resource::NOFILE.get().map_err(|e| e.to_string())?;
    let target = soft.max(want);
    if target > hard && Resource::NOFILE.set(target, target).is_ok() {
        return Ok((soft, target));
    }
    let target = target.min(hard);
    if target > soft {
        Resource::NOFILE
            .set(target, hard)
            .map_err(|e| e.to_string())?;
    }
    Ok((soft, target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_texts_are_read() {
        let status = "Name:\tpaiju\nVmPeak:\t  900 kB\nVmRSS:\t  311204 kB\nThreads:\t3\n";
        assert_eq!(rss_kb(status), Some(311_204));
        let stat = "4242 (paiju (main)) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0";
        assert_eq!(cpu_ticks(stat), Some(1234 + 567));
        let me = sample(&[std::process::id()]).expect("this process");
        assert!(me.rss_kb > 0);
        assert_eq!(sample(&[]), None);
    }

    #[test]
    fn the_fd_limit_never_goes_down() {
        let (before, after) = raise_fd_limit(64).unwrap();
        assert!(after >= before && after >= 64.min(before));
    }
}
