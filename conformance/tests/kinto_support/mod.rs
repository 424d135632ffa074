//! A Kinto server for the Kinto test (`conformance/tests/kinto.rs`) and the bench beside
//! Schemathesis (`conformance/benches/apps.rs`): started from the venv `cargo xtask kinto`
//! installs (`KINTO_BIN`) on a loopback port the OS picks, with in-memory backends, and
//! an admin account made through its own API.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NEEDS_KINTO: &str = "needs Kinto: run `cargo xtask kinto`";

/// The admin account the test makes (in the server's memory, gone when it stops).
pub const ADMIN: &str = "admin";

/// A Kinto server in its own process group, stopped with the group when dropped.
pub struct Kinto {
    child: Child,
    /// `http://127.0.0.1:PORT/v1`.
    pub base: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Kinto {
    /// `kinto init` (memory backends, the accounts plugin) and `kinto start`, then waits
    /// (bounded) for `/__heartbeat__`.
    pub fn start() -> Kinto {
        let exe = PathBuf::from(
            std::env::var_os("KINTO_BIN")
                .unwrap_or_else(|| panic!("KINTO_BIN is not set: {NEEDS_KINTO}")),
        );
        let dir = tempfile::tempdir().expect("a temp dir for Kinto");
        let ini = dir.path().join("kinto.ini");
        let init = Command::new(&exe)
            .args([
                "init",
                "--backend",
                "memory",
                "--cache-backend",
                "memory",
                "--ini",
            ])
            .arg(&ini)
            .current_dir(dir.path())
            .output()
            .expect("run `kinto init`");
        assert!(
            init.status.success(),
            "kinto init: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let log = dir.path().join("kinto.log");
        let log_file = std::fs::File::create(&log).expect("create the log");
        let child = Command::new(&exe)
            .args(["start", "--ini"])
            .arg(&ini)
            .args(["--port", &port.to_string()])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().expect("clone the log handle"))
            .stderr(log_file)
            .process_group(0)
            .spawn()
            .expect("start `kinto start`");
        let mut kinto = Kinto {
            child,
            base: format!("http://127.0.0.1:{port}/v1"),
            log,
            _dir: dir,
        };
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = kinto.child.try_wait() {
                panic!("Kinto exited with {status}:\n{}", kinto.log_tail());
            }
            if status_of(&format!("{}/__heartbeat__", kinto.base)) == Some(200) {
                return kinto;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Kinto did not answer within 60 s:\n{}",
                kinto.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Kinto {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// The status of a plain `GET` of `url` (`http://host:port/path`), for the readiness
/// loop, which runs before any async runtime of the test's is needed.
pub fn status_of(url: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let url = url.strip_prefix("http://")?;
    let (host, path) = url.split_once('/')?;
    let mut s = std::net::TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 32];
    let n = s.read(&mut head).ok()?;
    std::str::from_utf8(&head[..n])
        .ok()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

impl Kinto {
    /// Makes the admin account with `password` (`PUT /accounts/admin`, which Kinto's
    /// accounts plugin lets anyone do for an account that does not exist yet) and returns
    /// its `Authorization` header value. Plain HTTP over a socket: it runs before, and
    /// apart from, any async runtime of the caller's.
    pub fn make_admin(&self, password: &str) -> String {
        use std::io::{Read, Write};
        let rest = self.base.strip_prefix("http://").expect("an http base URL");
        let (host, prefix) = rest.split_once('/').expect("a base path");
        let body = format!(r#"{{"data": {{"password": "{password}"}}}}"#);
        let mut s = std::net::TcpStream::connect(host).expect("connect to Kinto");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            s,
            "PUT /{prefix}/accounts/{ADMIN} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send the account");
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        assert!(
            answer.starts_with("HTTP/1.1 201"),
            "the admin account: {}",
            answer.lines().next().unwrap_or_default()
        );
        let basic = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!("{ADMIN}:{password}"),
        );
        format!("Basic {basic}")
    }
}
