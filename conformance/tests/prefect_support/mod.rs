//! A Prefect server for the tests of `conformance/tests/prefect.rs`: started from the
//! venv `cargo xtask prefect` installs (`PREFECT_BIN`), on a loopback port the OS picks,
//! with its home and SQLite database in a temp dir; a small HTTP client for seeding and
//! reading its data behind the harness's back; and one run of the `conformance` binary
//! against it.

pub mod expected;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const NEEDS_PREFECT: &str = "needs Prefect server: run `cargo xtask prefect`";

/// Most time the server may take to answer `/api/health`: its first start migrates a new
/// SQLite database and registers its block types, which took 10-20 s on a loaded 2-core
/// machine.
const READY_WITHIN: Duration = Duration::from_secs(180);
/// Most time the server may take to stop after SIGTERM before its group is killed.
const STOP_WITHIN: Duration = Duration::from_secs(15);

/// The `prefect` executable `cargo xtask prefect` installed.
fn prefect_exe() -> PathBuf {
    let exe = std::env::var_os("PREFECT_BIN")
        .unwrap_or_else(|| panic!("PREFECT_BIN is not set: {NEEDS_PREFECT}"));
    let exe = PathBuf::from(exe);
    assert!(
        exe.exists(),
        "PREFECT_BIN names {}, which does not exist",
        exe.display()
    );
    exe
}

/// Where one test keeps its server log, spec, reports and record for a look after the run
/// (`target/tmp/prefect/<name>`), emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("prefect")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// A Prefect server in its own process group, stopped with the whole group when dropped
/// (also when the test panics), its home directory removed after.
pub struct Prefect {
    child: Child,
    /// `http://127.0.0.1:PORT/api`: the spec's server URL is `/api`.
    pub api: String,
    /// The server's log, access lines included (one per request, with method and path).
    pub log: PathBuf,
    _home: tempfile::TempDir,
}

impl Prefect {
    /// Starts `prefect server start` and waits (bounded) until `/api/health` answers 200.
    ///
    /// Offline and quiet: analytics off (no telemetry), no UI (nothing built or served),
    /// its settings and SQLite database under a fresh home. The scheduler and late-runs
    /// services are off so that nothing but HTTP requests changes the data between the
    /// tests' snapshots. Log level INFO writes uvicorn's access line for every request: a
    /// witness of what reached the server that does not come from the harness.
    pub fn start(dir: &Path) -> Prefect {
        let home = tempfile::tempdir().expect("a temp dir for PREFECT_HOME");
        let port = free_port();
        let log = dir.join("prefect-server.log");
        let log_file = std::fs::File::create(&log).expect("create the Prefect log");
        let db = home.path().join("prefect.db");
        let mut cmd = Command::new(prefect_exe());
        cmd.args(["server", "start", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args([
                "--no-ui",
                "--analytics-off",
                "--no-scheduler",
                "--no-late-runs",
                "--log-level",
                "INFO",
            ])
            .env("PREFECT_HOME", home.path())
            .env(
                "PREFECT_SERVER_DATABASE_CONNECTION_URL",
                format!("sqlite+aiosqlite:///{}", db.display()),
            )
            .env("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
            .env("PREFECT_SERVER_UI_ENABLED", "false")
            .env("DO_NOT_TRACK", "1")
            // No profile, API URL or key from the machine's own Prefect setup.
            .env_remove("PREFECT_API_URL")
            .env_remove("PREFECT_API_KEY")
            .env_remove("PREFECT_PROFILE")
            .env("NO_COLOR", "1")
            .current_dir(home.path())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().expect("clone the log handle"))
            .stderr(log_file)
            // Its own group, so that stopping it stops whatever it started.
            .process_group(0);
        let child = cmd.spawn().expect("start `prefect server start`");
        let mut prefect = Prefect {
            child,
            api: format!("http://127.0.0.1:{port}/api"),
            log,
            _home: home,
        };
        let client = Api::new(&prefect.api);
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = prefect.child.try_wait() {
                panic!(
                    "Prefect exited with {status} before it was ready:\n{}",
                    prefect.log_tail()
                );
            }
            if client.try_get("/health") == Some(200) {
                eprintln!(
                    "Prefect ready at {} after {:.1} s",
                    prefect.api,
                    started.elapsed().as_secs_f64()
                );
                return prefect;
            }
            if started.elapsed() > READY_WITHIN {
                panic!(
                    "Prefect did not answer /api/health within {} s:\n{}",
                    READY_WITHIN.as_secs(),
                    prefect.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The last lines of the server's log, for a failure message.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// Sends `GET /api/health?mark=LABEL`, whose access line marks a point in the log
    /// (a line is written when its answer starts, so it is there once the answer came).
    pub fn mark(&self, label: &str) {
        let status = Api::new(&self.api).try_get(&format!("/health?mark={label}"));
        assert_eq!(status, Some(200), "the mark {label} was not answered");
    }

    /// The requests the server logged between the marks `from` and `to`: (method, path).
    pub fn requests_between(&self, from: &str, to: &str) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(&self.log).expect("read the Prefect log");
        let lines: Vec<(String, String)> = text
            .lines()
            .filter(|l| l.contains("uvicorn.access"))
            .filter_map(|l| {
                // `... uvicorn.access - 127.0.0.1:39272 - "POST /api/flows/filter HTTP/1.1" 200`
                let quoted = l.split('"').nth(1)?;
                let mut parts = quoted.split(' ');
                Some((parts.next()?.to_string(), parts.next()?.to_string()))
            })
            .collect();
        let at = |label: &str| {
            let marker = format!("/api/health?mark={label}");
            lines
                .iter()
                .position(|(_, path)| *path == marker)
                .unwrap_or_else(|| {
                    panic!("no access line for the mark {label}: is the log level INFO?")
                })
        };
        let (start, end) = (at(from), at(to));
        lines[start + 1..end].to_vec()
    }
}

impl Drop for Prefect {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let signal_group = |sig: &str| {
            let _ = Command::new("kill")
                .args(["-s", sig, "--", &group])
                .stderr(Stdio::null())
                .status();
        };
        signal_group("TERM");
        let asked = Instant::now();
        while asked.elapsed() < STOP_WITHIN {
            if let Ok(Some(_)) = self.child.try_wait() {
                // The leader is gone; anything it left in the group goes too.
                signal_group("KILL");
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        signal_group("KILL");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking HTTP client for the test's own requests (seeding, snapshots, re-checks),
/// independent of the harness.
pub struct Api {
    rt: tokio::runtime::Runtime,
    http: reqwest::Client,
    base: String,
}

/// An answer: status and body (JSON when it parses, else the text as a JSON string).
pub type Answer = (u16, Value);

impl Api {
    pub fn new(base: &str) -> Api {
        Api {
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime"),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .no_proxy()
                // A fresh connection per request: Prefect closes idle ones after 5 s, and a
                // pooled one it closed while the harness ran would fail the next request.
                .pool_max_idle_per_host(0)
                .build()
                .expect("an HTTP client"),
            base: base.trim_end_matches('/').to_string(),
        }
    }

    /// The status of `GET path`, or `None` when nothing answered.
    fn try_get(&self, path: &str) -> Option<u16> {
        self.rt.block_on(async {
            let r = self
                .http
                .get(format!("{}{path}", self.base))
                .timeout(Duration::from_secs(2))
                .send()
                .await
                .ok()?;
            Some(r.status().as_u16())
        })
    }

    /// Sends `method path` (path relative to the API's base, query included) with an
    /// optional body: a JSON value, or text with its content type. A `503` is Prefect
    /// busy (its SQLite database locked by another writer), not an answer to the request:
    /// the test's own requests wait and send again, at most four times in all.
    pub fn send(&self, method: &str, path: &str, body: Option<(&str, &Value)>) -> Answer {
        let mut answer = self.send_with(method, path, &[], body);
        for wait in [250, 500, 1000] {
            if answer.0 != 503 {
                break;
            }
            std::thread::sleep(Duration::from_millis(wait));
            answer = self.send_with(method, path, &[], body);
        }
        answer
    }

    /// [`Api::send`] with these header fields too.
    pub fn send_with(
        &self,
        method: &str,
        path: &str,
        headers: &[(String, String)],
        body: Option<(&str, &Value)>,
    ) -> Answer {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
        let url = format!("{}{path}", self.base);
        self.rt.block_on(async {
            let mut req = self.http.request(method.clone(), &url);
            for (k, v) in headers {
                req = req.header(k.as_str(), v.as_str());
            }
            match body {
                Some((ct, Value::String(text))) if !ct.contains("json") => {
                    req = req
                        .header("content-type", ct)
                        .body(text.clone().into_bytes());
                }
                Some((ct, v)) => {
                    req = req
                        .header("content-type", ct)
                        .body(serde_json::to_vec(v).expect("JSON body"));
                }
                None => {}
            }
            let r = req
                .send()
                .await
                .unwrap_or_else(|e| panic!("{method} {url}: no answer: {e}"));
            let status = r.status().as_u16();
            let bytes = r.bytes().await.unwrap_or_default();
            let body = serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
            (status, body)
        })
    }

    pub fn get(&self, path: &str) -> Answer {
        self.send("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Answer {
        self.send("POST", path, Some(("application/json", body)))
    }

    /// `POST path` that must answer `want`; its JSON body.
    pub fn expect_post(&self, path: &str, body: &Value, want: u16) -> Value {
        let (status, got) = self.post(path, body);
        assert_eq!(status, want, "POST {path}: {got}");
        got
    }
}

/// Data created through Prefect's API before a run, as Prefect returned it.
pub struct Seed {
    pub flows: Vec<Value>,
    pub variables: Vec<Value>,
    /// A local-file-system block document, set as the server's default result storage
    /// (what `DELETE /admin/storage` would clear).
    pub storage: Value,
}

impl Seed {
    /// Three flows, three variables and a result-storage setting, as a user's own data on
    /// their server.
    pub fn create(api: &Api) -> Seed {
        let flows = ["etl-nightly", "billing-sync", "report-weekly"]
            .iter()
            .map(|name| {
                api.expect_post(
                    "/flows/",
                    &json!({"name": name, "tags": ["seed", "owned-by-user"]}),
                    201,
                )
            })
            .collect();
        let variables = [
            ("warehouse_dsn", json!("postgres://warehouse.internal/prod")),
            ("retry_limit", json!(5)),
            (
                "feature_flags",
                json!({"beta": true, "regions": ["eu", "us"]}),
            ),
        ]
        .iter()
        .map(|(name, value)| {
            api.expect_post(
                "/variables/",
                &json!({"name": name, "value": value, "tags": ["seed"]}),
                201,
            )
        })
        .collect();
        let (status, block_type) = api.get("/block_types/slug/local-file-system");
        assert_eq!(
            status, 200,
            "the local-file-system block type: {block_type}"
        );
        let schemas = api.expect_post(
            "/block_schemas/filter",
            &json!({"block_schemas": {"block_type_id": {"any_": [block_type["id"]]}}}),
            200,
        );
        let storage = api.expect_post(
            "/block_documents/",
            &json!({
                "name": "results-store",
                "data": {"basepath": "/srv/prefect-results"},
                "block_type_id": block_type["id"],
                "block_schema_id": schemas[0]["id"],
            }),
            201,
        );
        let (status, body) = api.send(
            "PUT",
            "/admin/storage",
            Some((
                "application/json",
                &json!({"default_result_storage_block_id": storage["id"]}),
            )),
        );
        assert!(
            (200..300).contains(&status),
            "PUT /admin/storage: {status} {body}"
        );
        Seed {
            flows,
            variables,
            storage,
        }
    }

    /// Every seeded record, read back by id, that is gone or differs from what Prefect
    /// returned when it was created (name, value, tags and the `updated` time alike), and
    /// the result-storage setting if it no longer names the seeded block.
    pub fn damage(&self, api: &Api) -> Vec<String> {
        let mut damaged = Vec::new();
        let storage = std::slice::from_ref(&self.storage);
        for (kind, records) in [
            ("flows", self.flows.as_slice()),
            ("variables", self.variables.as_slice()),
            ("block_documents", storage),
        ] {
            for want in records {
                let id = want["id"].as_str().expect("a seeded record has an id");
                let (status, got) = api.get(&format!("/{kind}/{id}"));
                if status != 200 {
                    damaged.push(format!(
                        "{kind}/{id} ({}): now {status} {got}",
                        want["name"]
                    ));
                } else if got != *want {
                    damaged.push(format!("{kind}/{id}: was {want}\n  now {got}"));
                }
            }
        }
        let (status, setting) = api.get("/admin/storage");
        if status != 200 || setting["default_result_storage_block_id"] != self.storage["id"] {
            damaged.push(format!(
                "the default result storage no longer names the seeded block {}: now {status} {setting}",
                self.storage["id"]
            ));
        }
        damaged
    }
}

/// Collections read with `POST /<name>/filter` (Prefect's list operations) for a
/// snapshot, each with a way to delete its records in the spec, so that a run allowed to
/// write can remove what it created. Logs and events are left out: the spec has no way to
/// delete them, and the server adds events of its own.
pub const COLLECTIONS: &[&str] = &[
    "flows",
    "flow_runs",
    "task_runs",
    "deployments",
    "saved_searches",
    "concurrency_limits",
    "v2/concurrency_limits",
    "block_types",
    "block_documents",
    "block_schemas",
    "work_pools",
    "work_queues",
    "artifacts",
    "variables",
    "automations",
];

/// Every record of [`COLLECTIONS`] by collection and id.
pub type Snapshot = BTreeMap<String, BTreeMap<String, Value>>;

/// Prefect's default page: a collection this long may hold more than was read.
const PAGE: usize = 200;

/// Reads every collection of [`COLLECTIONS`].
pub fn snapshot(api: &Api) -> Snapshot {
    COLLECTIONS
        .iter()
        .map(|name| {
            let list = api.expect_post(&format!("/{name}/filter"), &json!({}), 200);
            let list = list.as_array().expect("a filter answer is a list").clone();
            assert!(
                list.len() < PAGE,
                "{name}: {} records, a full page: the snapshot may miss some",
                list.len()
            );
            let by_id = list
                .into_iter()
                .map(|r| (r["id"].as_str().expect("a record id").to_string(), r))
                .collect();
            (name.to_string(), by_id)
        })
        .collect()
}

/// What differs between two snapshots: records added, removed or changed, one line each.
pub fn differences(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (name, was) in before {
        let now = &after[name];
        for (id, r) in was {
            match now.get(id) {
                None => out.push(format!("removed {name}/{id}: {}", r["name"])),
                Some(n) if n != r => out.push(format!("changed {name}/{id}: was {r}, now {n}")),
                Some(_) => {}
            }
        }
        for (id, r) in now {
            if !was.contains_key(id) {
                out.push(format!("left behind {name}/{id}: {}", r["name"]));
            }
        }
    }
    out
}

/// One run of the `conformance` binary and what it left.
pub struct Run {
    /// Exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// Its standard error (a panic message would be here).
    pub stderr: String,
    /// The JSON report (`--json`).
    pub report: Value,
    /// The record file (`--record`): one exchange per request sent.
    pub record: Vec<Value>,
    /// The spec the run was given, as fetched from the server.
    pub spec: Value,
}

/// Fetches the spec from the live server, then runs the harness on it with `extra` args:
/// `--spec` and `--base-url` are all a user has to give (the built-in contract files
/// belong to the built-in spec and stay out of this run).
pub fn run_harness(prefect: &Prefect, dir: &Path, extra: &[&str]) -> Run {
    let api = Api::new(&prefect.api);
    let (status, spec) = api.get("/openapi.json");
    assert_eq!(status, 200, "GET /api/openapi.json");
    let spec_path = dir.join("prefect-openapi.json");
    std::fs::write(
        &spec_path,
        serde_json::to_vec_pretty(&spec).expect("spec JSON"),
    )
    .expect("write the spec");
    let report = dir.join("report.json");
    let record = dir.join("record.json");
    let stdout = std::fs::File::create(dir.join("harness.out")).expect("create harness.out");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_BASE_URL")
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_CLIENT_ID")
        .env_remove("CONFORMANCE_CLIENT_SECRET")
        .env_remove("CONFORMANCE_REDIRECT_URI")
        .env_remove("CONFORMANCE_AUTH_CODE")
        .arg("--spec")
        .arg(&spec_path)
        .arg("--base-url")
        .arg(&prefect.api)
        .arg("--record")
        .arg(&record)
        .arg("--json")
        .arg(&report)
        // A loaded CI machine answers slowly; a timeout would be blamed on Prefect.
        .args(["--timeout", "30", "--quiet"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(stdout)
        .output()
        .expect("run the conformance binary");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    std::fs::write(dir.join("harness.err"), &stderr).expect("write harness.err");
    eprintln!(
        "harness run {:?} ended with {} after {:.1} s (files in {})",
        extra,
        out.status,
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    let read_json = |p: &Path| -> Value {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| {
            panic!(
                "the run ({}) wrote no {}: {e}\nstderr:\n{stderr}",
                out.status,
                p.display()
            )
        });
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let report = read_json(&report);
    let record = read_json(&record)
        .as_array()
        .expect("the record file is a list of exchanges")
        .clone();
    Run {
        code: out.status.code(),
        stderr,
        report,
        record,
        spec,
    }
}

impl Run {
    /// What is wrong with how the process ended: a panic, a signal, or an exit code that
    /// is none of the harness's (0 pass, 1 failures, 2 configuration error, 3 incomplete).
    pub fn exit_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.stderr.contains("panicked at") {
            out.push(format!("the harness panicked:\n{}", self.stderr));
        }
        if !matches!(self.code, Some(0..=3)) {
            out.push(format!(
                "the harness exited with {:?}, not 0..=3:\n{}",
                self.code, self.stderr
            ));
        }
        out
    }

    /// The results with verdict `verdict`.
    pub fn results(&self, verdict: &str) -> Vec<&Value> {
        self.report["results"]
            .as_array()
            .expect("the report lists results")
            .iter()
            .filter(|r| r["verdict"] == verdict)
            .collect()
    }

    /// The exchange that sent step `step` of case `case`.
    pub fn exchange(&self, case: &str, step: u64) -> Option<&Value> {
        self.record
            .iter()
            .find(|x| x["case"] == case && x["step"].as_u64() == Some(step))
    }

    /// The ids (last path segments) of the records the run removed at its end because it
    /// had created them: a request naming one cannot be sent again after the run.
    pub fn removed_by_run(&self) -> std::collections::BTreeSet<String> {
        self.record
            .iter()
            .filter(|x| x["method"] == "DELETE")
            .filter(|x| {
                x["case"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("cleanup/"))
            })
            .filter_map(|x| x["path"].as_str())
            .filter_map(|p| p.split('?').next()?.rsplit('/').next())
            .filter(|id| !id.is_empty())
            .map(String::from)
            .collect()
    }

    /// Every exchange whose method may change state (anything but GET, HEAD, OPTIONS).
    pub fn writes_sent(&self) -> Vec<String> {
        self.record
            .iter()
            .filter(|x| !matches!(x["method"].as_str(), Some("GET" | "HEAD" | "OPTIONS")))
            .map(|x| format!("{} {} ({})", x["method"], x["path"], x["case"]))
            .collect()
    }

    /// A 5xx answer is a failure on any spec: what breaks that rule, if anything. Every
    /// exchange answered 5xx must have ended the run with exit 1 and have a failed
    /// `not_a_server_error` result on its case.
    pub fn server_error_problems(&self) -> Vec<String> {
        let server_errors: Vec<&Value> = self
            .record
            .iter()
            .filter(|x| x["status"].as_u64().is_some_and(|s| s >= 500))
            .collect();
        eprintln!("5xx answers in the record: {}", server_errors.len());
        let mut out = Vec::new();
        if !server_errors.is_empty() && self.code != Some(1) {
            out.push(format!(
                "{} answers were 5xx, yet the run exited with {:?}, not 1",
                server_errors.len(),
                self.code
            ));
        }
        let failed = self.results("failed");
        out.extend(
            server_errors
                .iter()
                .filter(|x| {
                    !failed
                        .iter()
                        .any(|r| r["case"] == x["case"] && r["check"] == "not_a_server_error")
                })
                .map(|x| {
                    format!(
                        "5xx without a failed not_a_server_error: {} {} {} -> {}",
                        x["case"], x["method"], x["path"], x["status"]
                    )
                }),
        );
        out
    }

    /// Whether the spec has a GET operation whose path template matches the concrete
    /// `path` (a `{name}` segment matches any one segment).
    pub fn spec_has_get(&self, path: &str) -> bool {
        let Some(paths) = self.spec["paths"].as_object() else {
            return false;
        };
        let concrete: Vec<&str> = path.split('/').collect();
        paths.iter().any(|(template, item)| {
            let segments: Vec<&str> = template.split('/').collect();
            item.get("get").is_some()
                && segments.len() == concrete.len()
                && segments
                    .iter()
                    .zip(&concrete)
                    .all(|(t, c)| t == c || (t.starts_with('{') && t.ends_with('}')))
        })
    }

    /// The operation object of `operation_id` in the spec.
    pub fn operation(&self, operation_id: &str) -> Option<&Value> {
        self.spec["paths"].as_object()?.values().find_map(|item| {
            item.as_object()?
                .values()
                .find(|op| op["operationId"] == operation_id)
        })
    }
}
