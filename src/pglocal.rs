//! The project-local PostgreSQL cluster used when `DATABASE_URL` is unset: created under
//! `<data>/pg` on first use with the `initdb`/`pg_ctl` found on `PATH` or under
//! `/usr/lib/postgresql/*/bin`, started if it is not running, reused afterwards.
//!
//! `initdb` refuses to run as root, so as root the cluster belongs to the `postgres` system user
//! (or `nobody`) and every PostgreSQL binary runs as that user.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

const PORT_FILE: &str = "paiju.port";

pub struct LocalCluster {
    pub dir: PathBuf,
    pub port: u16,
    bin: PathBuf,
    owner: Owner,
}

impl LocalCluster {
    /// URL of a database in this cluster.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Stops the cluster (fast shutdown: open sessions are ended).
    pub fn stop(&self) -> anyhow::Result<()> {
        run(
            as_owner(&mut Command::new(self.bin.join("pg_ctl")), self.owner)
                .arg("stop")
                .arg("-D")
                .arg(&self.dir)
                .args(["-m", "fast", "-w"]),
            "pg_ctl stop",
        )
    }
}

/// Creates (first time) and starts (when stopped) the cluster under `data_dir/pg`. Safe to call
/// from several processes at once: they serialise on a lock file.
pub fn ensure(data_dir: &Path) -> anyhow::Result<LocalCluster> {
    fs::create_dir_all(data_dir)
        .with_context(|| format!("creating the data directory {}", data_dir.display()))?;
    let data_dir = data_dir.canonicalize()?;
    let dir = data_dir.join("pg");
    let lock = File::create(data_dir.join("pg.lock"))?;
    lock.lock().context("locking the local cluster")?;

    let bin = find_bin_dir()?;
    let owner = cluster_owner()?;
    if !dir.join("PG_VERSION").exists() {
        init_cluster(&bin, &dir, owner)?;
    }
    let mut port: u16 = fs::read_to_string(dir.join(PORT_FILE))
        .context("reading the local cluster's port")?
        .trim()
        .parse()
        .context("parsing the local cluster's port")?;
    if !is_running(&bin, &dir, owner) {
        let log = data_dir.join("pg.log");
        prepare_owned_file(&log, owner)?;
        if let Err(first) = start(&bin, &dir, &log, owner) {
            // The usual cause is another server on our port; move to a free one and retry.
            tracing::warn!(error = %first, "local PostgreSQL did not start; retrying on a new port");
            port = free_port()?;
            write_port(&dir, port, owner)?;
            start(&bin, &dir, &log, owner)
                .with_context(|| format!("starting local PostgreSQL (see {})", log.display()))?;
        }
    }
    drop(lock);
    Ok(LocalCluster {
        dir,
        port,
        bin,
        owner,
    })
}

fn find_bin_dir() -> anyhow::Result<PathBuf> {
    let has_tools = |d: &Path| d.join("pg_ctl").is_file() && d.join("initdb").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if has_tools(&d) {
                // Debian links these into /usr/local/bin; the real directory also holds
                // `postgres`, which pg_ctl looks for beside itself.
                let real = d.join("pg_ctl").canonicalize()?;
                return Ok(real.parent().unwrap_or(&d).to_path_buf());
            }
        }
    }
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let d = e.path().join("bin");
            has_tools(&d).then_some((v, d))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((_, d)) => Ok(d),
        None => bail!(
            "DATABASE_URL is unset and no PostgreSQL server binaries (initdb, pg_ctl) were found \
             on PATH or under /usr/lib/postgresql/*/bin: install the PostgreSQL server package \
             or set DATABASE_URL"
        ),
    }
}

/// `(uid, gid)` to run PostgreSQL as, or `None` to run as ourselves.
type Owner = Option<(u32, u32)>;

fn cluster_owner() -> anyhow::Result<Owner> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { geteuid() } != 0 {
        return Ok(None);
    }
    let passwd = fs::read_to_string("/etc/passwd").context("reading /etc/passwd")?;
    for name in ["postgres", "nobody"] {
        if let Some(line) = passwd.lines().find(|l| l.split(':').next() == Some(name)) {
            let f: Vec<&str> = line.split(':').collect();
            if let (Some(uid), Some(gid)) = (f.get(2), f.get(3)) {
                return Ok(Some((uid.parse()?, gid.parse()?)));
            }
        }
    }
    bail!("running as root, but there is neither a postgres nor a nobody user to run PostgreSQL as")
}

unsafe extern "C" {
    fn geteuid() -> u32;
}

fn as_owner(cmd: &mut Command, owner: Owner) -> &mut Command {
    if let Some((uid, gid)) = owner {
        cmd.uid(uid).gid(gid);
        // HOME of root is not readable by the cluster user.
        cmd.env("HOME", "/tmp");
    }
    cmd.current_dir("/")
}

fn run(cmd: &mut Command, what: &str) -> anyhow::Result<()> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn init_cluster(bin: &Path, dir: &Path, owner: Owner) -> anyhow::Result<()> {
    tracing::info!(dir = %dir.display(), bin = %bin.display(), "creating the local PostgreSQL cluster");
    if dir.exists() {
        // A half-made cluster from an interrupted first run: start over.
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(dir, Some(uid), Some(gid))?;
        make_reachable(dir, uid)?;
    }
    run(
        as_owner(&mut Command::new(bin.join("initdb")), owner)
            .arg("-D")
            .arg(dir)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-instructions",
            ])
            .env("LC_ALL", "C"),
        "initdb",
    )?;
    let mut conf = OpenOptions::new()
        .append(true)
        .open(dir.join("postgresql.conf"))?;
    writeln!(
        conf,
        "\n# paiju local cluster\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n\
         max_connections = 300\nshared_buffers = 256MB\ninclude_if_exists = 'paiju_port.conf'"
    )?;
    write_port(dir, free_port()?, owner)
}

/// As root, the cluster user must be able to walk down to the data directory.
fn make_reachable(dir: &Path, uid: u32) -> anyhow::Result<()> {
    for anc in dir.ancestors().skip(1) {
        let meta = fs::metadata(anc)?;
        if meta.uid() != uid && meta.mode() & 0o001 == 0 {
            tracing::warn!(path = %anc.display(), "adding o+x so the PostgreSQL user can reach its data directory");
            fs::set_permissions(anc, fs::Permissions::from_mode(meta.mode() | 0o001))?;
        }
    }
    Ok(())
}

fn write_port(dir: &Path, port: u16, owner: Owner) -> anyhow::Result<()> {
    fs::write(dir.join("paiju_port.conf"), format!("port = {port}\n"))?;
    fs::write(dir.join(PORT_FILE), format!("{port}\n"))?;
    if let Some((uid, gid)) = owner {
        for f in ["paiju_port.conf", PORT_FILE] {
            std::os::unix::fs::chown(dir.join(f), Some(uid), Some(gid))?;
        }
    }
    Ok(())
}

fn prepare_owned_file(path: &Path, owner: Owner) -> anyhow::Result<()> {
    OpenOptions::new().create(true).append(true).open(path)?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(path, Some(uid), Some(gid))?;
    }
    Ok(())
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn is_running(bin: &Path, dir: &Path, owner: Owner) -> bool {
    as_owner(&mut Command::new(bin.join("pg_ctl")), owner)
        .arg("status")
        .arg("-D")
        .arg(dir)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn start(bin: &Path, dir: &Path, log: &Path, owner: Owner) -> anyhow::Result<()> {
    tracing::info!(dir = %dir.display(), "starting the local PostgreSQL cluster");
    run(
        as_owner(&mut Command::new(bin.join("pg_ctl")), owner)
            .arg("start")
            .arg("-D")
            .arg(dir)
            .arg("-l")
            .arg(log)
            .args(["-w", "-t", "60"]),
        "pg_ctl start",
    )
}
