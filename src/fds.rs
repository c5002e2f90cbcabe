//! The open-file limit. Every connected player holds a connection (its stream), so a server
//! with the usual soft limit of 1,024 descriptors refuses players long before memory or CPU
//! runs out. At start the server raises its soft limit to the hard limit (what an
//! unprivileged process may do) and logs both (docs/performance.md § Connected players).

use rlimit::Resource;

/// The soft limit before and after raising it to the hard limit.
pub fn raise_open_files() -> std::io::Result<(u64, u64)> {
    let (soft, hard) = Resource::NOFILE.get()?;
    if soft < hard {
        Resource::NOFILE.set(hard, hard)?;
    }
    let (after, _) = Resource::NOFILE.get()?;
    Ok((soft, after))
}

/// Raises the limit and logs what it was and is; a failure is logged, not fatal.
pub fn raise_and_log() {
    match raise_open_files() {
        Ok((before, after)) => tracing::info!(
            before,
            after,
            "open-file limit raised to the hard limit: each connected player holds one"
        ),
        Err(e) => tracing::warn!(error = %e, "could not raise the open-file limit"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_reaches_the_hard_limit() {
        let (before, after) = raise_open_files().unwrap();
        let (soft, hard) = Resource::NOFILE.get().unwrap();
        assert!(after >= before);
        assert_eq!((soft, after), (hard, hard));
    }
}
