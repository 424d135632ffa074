//! Proof of generality: the platform's full published document (350 operations, 278
//! schemas) and every focused spec under `tests/specs/` generate crates that compile with
//! no warnings.
//!
//! The crates are members of one temporary workspace checked with `cargo clippy`
//! (or `cargo check` without clippy) `--offline` and `RUSTFLAGS=-Dwarnings`; the workspace's `Cargo.lock` is copied in so the
//! same dependency versions are used, and the target directory is a subdirectory of the
//! workspace's own so that dependencies are built once and reused by later runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> PathBuf {
    manifest().join("../../shared/fixtures/tradovate-openapi-2026-08-21.json")
}

const CRATE_MANIFEST: &str = r#"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
reqwest = { version = "0.13", default-features = false, features = ["json", "rustls", "query", "form"] }
"#;

/// Added to the crate generated from `tests/specs/list_encodings.yaml`: the wire form of
/// every list encoding, read off a loopback socket (a snapshot shows the code, not what
/// `reqwest` makes of it).
const LIST_WIRE_TEST: &str = r#"
use std::io::{Read, Write};

/// Answers `n` connections with 204 and returns each request line.
fn serve(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        (0..n)
            .map(|_| {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 8192];
                let len = s.read(&mut buf).unwrap();
                s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").unwrap();
                let head = String::from_utf8_lossy(&buf[..len]).into_owned();
                head.lines().next().unwrap_or_default().to_owned()
            })
            .collect()
    });
    (base, handle)
}

#[test]
fn lists_go_on_the_wire_as_their_style_says() {
    let (base, server) = serve(2);
    let client = gen_list_encodings::client::Client::new(base).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        client
            .get_items(&[1, 2], &["a b", "c"], Some(&["x,y", "z"]), Some(&[3, 4]), None)
            .await
            .unwrap();
        client.get_items(&[5], &["n"], Some(&["one"]), None, None).await.unwrap();
    });
    let lines = server.join().unwrap();
    assert_eq!(
        lines,
        [
            "GET /items/1,2?tags=x%2Cy,z&codes=3|4&names=a+b&names=c HTTP/1.1",
            "GET /items/5?tags=one&names=n HTTP/1.1",
        ]
    );
}
"#;

/// Added to the crate generated from `tests/specs/unions.yaml`: sample values of every
/// union form decode into the variant they should and encode back to the same JSON,
/// unknown shapes and tags included.
const UNIONS_ROUND_TRIP_TEST: &str = include_str!("generated_tests/unions_round_trip.rs");

#[test]
fn fixture_and_focused_specs_compile_without_warnings() {
    let fixture = fixture();
    assert!(
        fixture.is_file(),
        "the platform's document is missing at {} (the proof of generality needs it)",
        fixture.display()
    );
    let mut specs = vec![("fixture".to_owned(), fixture)];
    let mut focused: Vec<PathBuf> = std::fs::read_dir(manifest().join("tests/specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    focused.sort();
    for path in focused {
        let stem = path
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .replace('_', "-");
        specs.push((stem, path));
    }

    let dir = tempfile::tempdir().unwrap();
    let mut members = Vec::new();
    for (name, spec) in &specs {
        let files = codegen::generate_file(spec, &spec.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"))
            .files;
        let crate_dir = dir.path().join(name);
        codegen::sync(&crate_dir.join("src"), &files, codegen::Mode::Write).unwrap();
        let mut manifest = format!("[package]\nname = \"gen-{name}\"{CRATE_MANIFEST}");
        if name == "list-encodings" {
            manifest.push_str(
                "\n[dev-dependencies]\ntokio = { version = \"1\", features = [\"rt\"] }\n",
            );
            std::fs::create_dir_all(crate_dir.join("tests")).unwrap();
            std::fs::write(crate_dir.join("tests/wire.rs"), LIST_WIRE_TEST).unwrap();
        }
        if name == "unions" {
            std::fs::create_dir_all(crate_dir.join("tests")).unwrap();
            std::fs::write(
                crate_dir.join("tests/round_trip.rs"),
                UNIONS_ROUND_TRIP_TEST,
            )
            .unwrap();
        }
        std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
        members.push(format!("\"{name}\""));
    }
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(
        manifest().join("../Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();

    let fixture_client = std::fs::read_to_string(dir.path().join("fixture/src/client.rs")).unwrap();
    assert_eq!(fixture_client.matches("pub async fn ").count(), 350);
    assert!(
        !fixture_client.contains("authorization: &str"),
        "Authorization header parameters become the bearer token"
    );
    assert!(fixture_client.contains("pub async fn o_auth_token("));

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target"))
        .join("generated-check");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Clippy when the toolchain has it (the generated code promises clippy-clean), else
    // the compiler alone.
    let has_clippy = Command::new(&cargo)
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let tool = if has_clippy { "clippy" } else { "check" };
    let output = Command::new(&cargo)
        .args([
            tool,
            "--offline",
            "--workspace",
            "--all-targets",
            "--message-format",
            "short",
        ])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTFLAGS", "-Dwarnings")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "generated crates do not compile cleanly:\n{stderr}"
    );
    assert!(!stderr.contains("warning"), "warnings:\n{stderr}");

    let output = Command::new(&cargo)
        .args([
            "test",
            "--offline",
            "--package",
            "gen-list-encodings",
            "--package",
            "gen-unions",
        ])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the list encodings' wire test or the unions' round trip failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
