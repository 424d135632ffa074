//! `cargo xtask diff OLD NEW`: what changed between two versions of a spec, on the wire,
//! in the generated crate and in the project's decisions (the `spec-diff` crate does the
//! work; this reads the files and prints).
//!
//! OLD and NEW are files, or `git:REV:path` for a committed version (`git:HEAD~3:spec/
//! openapi.yaml`). Exit 0 when no finding trips `--fail-on`, 1 when one does, 2 when a
//! spec (or the ignore file) cannot be read.

mod crosscheck;
mod history;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use spec_diff::{FailOn, Ignore, Options, render};

/// Arguments of `cargo xtask diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The old spec: a file, or `git:REV:path`. Required, except with `--list-rules`,
    /// `--cross-check` or `--github-history`.
    #[arg(required_unless_present_any = ["list_rules", "cross_check", "github_history"])]
    old: Option<String>,
    /// The new spec: a file, or `git:REV:path`. Required, as OLD is.
    #[arg(required_unless_present_any = ["list_rules", "cross_check", "github_history"])]
    new: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Text: every operation of a finding and every line whole (by default a finding
    /// names five of its other operations and lines stop at 200 characters).
    #[arg(long)]
    verbose: bool,
    /// Exit 1 when a finding of this kind is present (repeatable): `wire` (a wire change
    /// at level ERR), `major` (a major change of the generated crate), `minor` (major or
    /// minor), `decision` (a project decision loosened, tightened or changed, or an x- rule
    /// changed or removed).
    #[arg(long, value_enum)]
    fail_on: Vec<Fail>,
    /// Known changes accepted with a reason (YAML list of `rule`, `operation`, `pointer`,
    /// `reason`).
    #[arg(long, value_name = "FILE")]
    ignore: Option<PathBuf>,
    /// The version of the crate generated from OLD, for the version it should get (a
    /// semver version: MAJOR.MINOR.PATCH).
    #[arg(long, default_value = "0.1.0", value_parser = crate_version)]
    crate_version: String,
    /// Fetch a `$ref` to an `http(s)` URL in either spec instead of refusing it.
    #[arg(long)]
    url_refs: bool,
    /// Print the rules and exit.
    #[arg(long)]
    list_rules: bool,
    /// Cross-check the verdicts on every focused pair against cargo-semver-checks and
    /// Redocly CLI (installed into target/tools/); exit 1 on an unexplained difference.
    #[arg(long, conflicts_with_all = ["old", "new", "list_rules"])]
    cross_check: bool,
    /// Fetch two releases of GitHub's REST description (npm `@octokit/openapi`, into
    /// target/tools/) and run the test that pins the diff's findings on them.
    #[arg(long, conflicts_with_all = ["old", "new", "list_rules", "cross_check"])]
    github_history: bool,
    /// With --cross-check: only the pairs whose name contains this.
    #[arg(long, requires = "cross_check")]
    only: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
    /// GitHub Actions annotations (workflow commands), each on its line of the spec.
    Github,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Fail {
    Wire,
    Major,
    Minor,
    Decision,
}

/// `--crate-version` as cargo reads a package's version; anything else is refused before
/// a spec is read (the suggested next version is computed from it).
fn crate_version(given: &str) -> Result<String, String> {
    semver::Version::parse(given)
        .map(|v| v.to_string())
        .map_err(|e| format!("not a semver version (MAJOR.MINOR.PATCH, e.g. 0.1.0): {e}"))
}

/// Reads a spec argument: a file, or `git:REV:path` through `git show`.
fn load(arg: &str, url_refs: bool) -> Result<spec_model::Source, String> {
    let text = match arg.strip_prefix("git:") {
        Some(rest) => {
            let (rev, path) = rest
                .split_once(':')
                .ok_or_else(|| format!("`{arg}`: expected git:REV:path"))?;
            let out = Command::new("git")
                .args(["show", &format!("{rev}:{path}")])
                .output()
                .map_err(|e| format!("cannot run git: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "{arg}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            String::from_utf8(out.stdout).map_err(|_| format!("{arg}: not UTF-8 text"))?
        }
        None => {
            // A file: the files its `$ref`s name are brought in beside it.
            let text =
                std::fs::read_to_string(arg).map_err(|e| format!("cannot read {arg}: {e}"))?;
            let source = spec_model::Source {
                name: arg.to_owned(),
                text,
            };
            let fetch: Option<spec_model::bundle::Fetch<'_>> =
                url_refs.then_some(&spec_model::fetch::url);
            return spec_model::bundle::bundle_with(std::path::Path::new(arg), source, fetch)
                .map_err(|e| e.to_string());
        }
    };
    Ok(spec_model::Source {
        name: arg.to_owned(),
        text,
    })
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    if args.list_rules {
        print!("{}", render::rules());
        return ExitCode::SUCCESS;
    }
    if args.github_history {
        return history::run();
    }
    if args.cross_check {
        return match crosscheck::run(args.only.as_deref()) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("diff --cross-check: {e}");
                ExitCode::from(2)
            }
        };
    }
    let (Some(old), Some(new)) = (&args.old, &args.new) else {
        eprintln!("diff: give OLD and NEW");
        return ExitCode::from(2);
    };
    let ignore = match &args.ignore {
        None => Ignore::default(),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Ignore::parse(&t))
        {
            Ok(ignore) => ignore,
            Err(e) => {
                eprintln!("diff: ignore file {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    let sources = load(old, args.url_refs).and_then(|o| load(new, args.url_refs).map(|n| (o, n)));
    let (old, new) = match sources {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("diff: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        crate_version: args.crate_version.clone(),
        ignore,
    };
    let report = match spec_diff::diff(&old, &new, &options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("diff: {e}");
            return ExitCode::from(2);
        }
    };
    print!(
        "{}",
        match args.format {
            Format::Text => render::text_with(&report, args.verbose),
            Format::Json => render::json(&report) + "\n",
            Format::Markdown => render::markdown(&report),
            Format::Github => render::github(&report, &old, &new),
        }
    );
    if let Some(why) = &report.rust.unjudged
        && args
            .fail_on
            .iter()
            .any(|f| matches!(f, Fail::Major | Fail::Minor))
    {
        // The gate asked about the crate, and the crate could not be judged: neither
        // green nor red.
        eprintln!("diff: --fail-on major/minor cannot be judged: {why}");
        return ExitCode::from(2);
    }
    let mut failing = 0;
    for fail in &args.fail_on {
        let on = match fail {
            Fail::Wire => FailOn::Wire,
            Fail::Major => FailOn::Major,
            Fail::Minor => FailOn::Minor,
            Fail::Decision => FailOn::Decision,
        };
        failing += report.failing(on).len();
    }
    if failing > 0 {
        eprintln!("diff: {failing} finding(s) trip --fail-on");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str, side: &str) -> String {
        crate::tools::project_root()
            .join("spec-diff/tests/pairs")
            .join(name)
            .join(format!("{side}.yaml"))
            .display()
            .to_string()
    }

    fn args(old: &str, new: &str, fail_on: &[Fail]) -> Args {
        Args {
            old: Some(old.to_owned()),
            new: Some(new.to_owned()),
            format: Format::Text,
            verbose: false,
            fail_on: fail_on.to_vec(),
            ignore: None,
            crate_version: "0.1.0".to_owned(),
            url_refs: false,
            list_rules: false,
            cross_check: false,
            github_history: false,
            only: None,
        }
    }

    /// The exit codes the README promises: 1 only for what `--fail-on` names, 2 for a
    /// spec or ignore file that cannot be read.
    #[test]
    fn exit_codes() {
        let (old, new) = (
            pair("request-max-length-decreased", "old"),
            pair("request-max-length-decreased", "new"),
        );
        assert_eq!(run(args(&old, &new, &[])), ExitCode::SUCCESS);
        assert_eq!(run(args(&old, &new, &[Fail::Wire])), ExitCode::from(1));
        // A tightened maxLength changes no signature.
        assert_eq!(run(args(&old, &new, &[Fail::Major])), ExitCode::SUCCESS);
        assert_eq!(run(args(&old, "no/such/spec.yaml", &[])), ExitCode::from(2));
        assert_eq!(
            run(args(&old, "git:no-such-rev:spec/openapi.yaml", &[])),
            ExitCode::from(2)
        );
        let bad = std::env::temp_dir().join(format!("diff-ignore-{}.yaml", std::process::id()));
        std::fs::write(&bad, "- rule: no-such-rule\n  reason: x\n").unwrap();
        let mut with_ignore = args(&old, &new, &[Fail::Wire]);
        with_ignore.ignore = Some(bad.clone());
        assert_eq!(run(with_ignore), ExitCode::from(2));
        std::fs::write(
            &bad,
            "- rule: request-max-length-decreased\n  reason: accepted for the test\n\
             - rule: api-version-not-bumped\n  reason: follows from the one above\n",
        )
        .unwrap();
        let mut with_ignore = args(&old, &new, &[Fail::Wire]);
        with_ignore.ignore = Some(bad.clone());
        assert_eq!(run(with_ignore), ExitCode::SUCCESS);
        std::fs::remove_file(&bad).unwrap();
    }

    #[test]
    fn the_crate_version_is_a_semver_version() {
        assert_eq!(crate_version("1.4.2").as_deref(), Ok("1.4.2"));
        assert_eq!(crate_version("0.1.0-beta.1").as_deref(), Ok("0.1.0-beta.1"));
        for bad in ["banana", "1.4", "v1.4.2", ""] {
            let e = crate_version(bad).unwrap_err();
            assert!(e.contains("not a semver version"), "{bad}: {e}");
        }
    }

    /// A committed version is read through git: the spec at HEAD against itself has no
    /// finding that fails anything.
    #[test]
    fn git_revisions_are_read() {
        let spec =
            load("git:HEAD:spec/openapi.yaml", false).expect("git show HEAD:spec/openapi.yaml");
        assert!(spec.text.contains("openapi:"));
        assert_eq!(
            run(args(
                "git:HEAD:spec/openapi.yaml",
                "git:HEAD:spec/openapi.yaml",
                &[Fail::Wire, Fail::Minor, Fail::Decision]
            )),
            ExitCode::SUCCESS
        );
    }
}
