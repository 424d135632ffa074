//! External tools the tests need (Python and npm packages), installed by the project
//! itself into `target/tools/` so that a fresh machine needs nothing done by hand.
//! Versions are pinned so that every machine runs the same checker.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root: xtask lives one level below it.
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent directory")
        .to_path_buf()
}

/// Where installed tools live: `tools/` inside cargo's target directory (`target/`, or
/// `CARGO_TARGET_DIR`, which cargo reads relative to the working directory), so that
/// `cargo clean` removes them and a checkout with its own target directory has its own.
pub fn tools_dir() -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        Some(t) => std::env::current_dir()
            .map(|cwd| cwd.join(&t))
            .unwrap_or_else(|_| PathBuf::from(t)),
        None => project_root().join("target"),
    };
    target.join("tools")
}

/// Runs a command, naming it in the error when it cannot start or fails.
pub fn run_checked(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed with {status}"))
    }
}

/// A Python virtual environment under `target/tools/<name>` holding `requirements`
/// (pip specifiers, pinned). Created once; a marker file records what was installed so
/// that a changed pin reinstalls. Returns the venv's `bin/` directory.
pub fn python_venv(name: &str, requirements: &[&str]) -> Result<PathBuf, String> {
    let venv = tools_dir().join(name);
    let bin = venv.join("bin");
    let marker = venv.join(".installed");
    let wanted = requirements.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(bin);
    }
    std::fs::create_dir_all(tools_dir()).map_err(|e| format!("cannot create tools dir: {e}"))?;
    if !bin.join("python").exists() {
        eprintln!("creating Python venv {}", venv.display());
        run_checked(Command::new(python()).args(["-m", "venv"]).arg(&venv))?;
    }
    eprintln!(
        "installing {} into {}",
        requirements.join(" "),
        venv.display()
    );
    run_checked(
        Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(requirements),
    )?;
    std::fs::write(&marker, wanted)
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(bin)
}

/// The interpreter new venvs are made with: `PYTHON` when set, else `python3.11` (the
/// release the pinned tools are checked on) when it is on `PATH`, else `python3`.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    on_path("python3.11").unwrap_or_else(|| PathBuf::from("python3"))
}

/// An npm package installed under `target/tools/npm` (pinned `name@version`). Returns
/// the path of its executable `bin` in `node_modules/.bin`.
pub fn npm_tool(package: &str, bin: &str) -> Result<PathBuf, String> {
    let prefix = npm_install(package, bin)?;
    Ok(prefix.join("node_modules").join(".bin").join(bin))
}

/// An npm package of data, not of programs (pinned `name@version`), installed under
/// `target/tools/npm`. Returns its folder in `node_modules`.
pub fn npm_package(package: &str, name: &str) -> Result<PathBuf, String> {
    let prefix = npm_install(package, name)?;
    Ok(prefix.join("node_modules").join(name))
}

/// Installs `package` under `target/tools/npm` unless the marker named by `key` says this
/// very version is there (and what `key` names exists). Returns the npm prefix.
fn npm_install(package: &str, key: &str) -> Result<PathBuf, String> {
    let prefix = tools_dir().join("npm");
    let installed = [
        prefix.join("node_modules").join(".bin").join(key),
        prefix.join("node_modules").join(key),
    ];
    let marker = prefix.join(format!(".installed-{key}"));
    if installed.iter().any(|p| p.exists())
        && std::fs::read_to_string(&marker).ok().as_deref() == Some(package)
    {
        return Ok(prefix);
    }
    std::fs::create_dir_all(&prefix)
        .map_err(|e| format!("cannot create {}: {e}", prefix.display()))?;
    eprintln!("installing {package} into {}", prefix.display());
    run_checked(
        Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(package),
    )?;
    std::fs::write(&marker, package)
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(prefix)
}

/// One file of a published npm package (pinned `name@version`), without installing the
/// package: `npm pack` fetches its tarball into `target/tools/npm-files/<key>/` and only
/// `file` (a path inside the package) is kept. For packages of data far larger than the
/// one document a test needs (GitHub's REST descriptions: 28 MB packed, 450 MB unpacked,
/// for a 13 MB file). Returns the file's path.
pub fn npm_file(package: &str, key: &str, file: &str) -> Result<PathBuf, String> {
    let dir = tools_dir().join("npm-files").join(key);
    let path = dir.join("package").join(file);
    let marker = dir.join(".fetched");
    let wanted = format!("{package} {file}");
    if path.exists() && std::fs::read_to_string(&marker).ok().as_deref() == Some(&*wanted) {
        return Ok(path);
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    eprintln!("fetching {file} of {package} into {}", dir.display());
    let packed = Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(&dir)
        .arg(package)
        .output()
        .map_err(|e| format!("cannot run npm pack: {e}"))?;
    if !packed.status.success() {
        return Err(format!(
            "npm pack {package} failed: {}",
            String::from_utf8_lossy(&packed.stderr).trim()
        ));
    }
    let tarball = String::from_utf8_lossy(&packed.stdout)
        .lines()
        .last()
        .map(|l| dir.join(l.trim()))
        .ok_or_else(|| format!("npm pack {package} named no tarball"))?;
    run_checked(
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&dir)
            .arg(format!("package/{file}")),
    )?;
    let _ = std::fs::remove_file(&tarball);
    std::fs::write(&marker, wanted)
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(path)
}

/// A program from a Debian package (`apt-get install`), for tools that cannot live under
/// `target/tools/` (a browser). Returns the program's path when it is on `PATH` already;
/// otherwise installs the package, which needs root (CI and the project's machines run as
/// root). Not pinned: Debian's stable archive is the pin.
pub fn debian_program(package: &str, program: &str) -> Result<PathBuf, String> {
    if let Some(found) = on_path(program) {
        return Ok(found);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return Err(format!(
            "`{program}` is not installed and installing Debian's `{package}` needs root: \
             run `apt-get install {package}` as root"
        ));
    }
    eprintln!("installing Debian's {package} (apt-get)");
    run_checked(Command::new("apt-get").args(["update", "-qq"]))?;
    run_checked(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends", package])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )?;
    on_path(program).ok_or_else(|| format!("`{package}` installed but `{program}` is not on PATH"))
}

/// The first `PATH` entry holding an executable named `program`.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}
