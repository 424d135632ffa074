//! The READMEs point at each other (the project's short one at each crate's), so a moved
//! or renamed file must not leave a link to nothing. Every Markdown file of the repository
//! is read; each inline link `[text](target)` that is not a URL must name a file or folder
//! that exists, relative to the file that holds it, and a `#fragment` must be the slug of
//! a heading of the file it names, as GitHub makes it. Fenced code and code spans are not
//! read: a link written there is an example, not a link.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.md` file under `dir`, leaving out build output, installed tools and hidden
/// folders (none of them is the project's own prose).
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            markdown_files(&p, out);
        } else if name.ends_with(".md") {
            out.push(p);
        }
    }
}

/// The text outside fenced code blocks and code spans, line by line (blanked code keeps
/// line numbers).
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return String::new();
            }
            if fenced {
                return String::new();
            }
            let mut out = String::new();
            let mut in_code = false;
            for c in line.chars() {
                if c == '`' {
                    in_code = !in_code;
                } else if !in_code {
                    out.push(c);
                }
            }
            out
        })
        .collect()
}

/// The targets of the inline links of one line: what stands between `](` and its `)`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

/// A heading's anchor as GitHub derives it: lower case, punctuation other than `-` and `_`
/// dropped, each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (fenced code left out; code spans keep their
/// text, as GitHub's anchors do).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// What is wrong with one link of `file`, if anything.
fn broken(file: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let named = if path.is_empty() {
        file.to_path_buf()
    } else {
        file.parent().unwrap().join(path)
    };
    if !named.exists() {
        return Some(format!("{target}: no such file"));
    }
    if let Some(fragment) = fragment {
        if !named.is_file() || named.extension().is_none_or(|e| e != "md") {
            return Some(format!(
                "{target}: a fragment of a file that is not Markdown"
            ));
        }
        let text = std::fs::read_to_string(&named).unwrap();
        if !anchors(&text).iter().any(|a| a == fragment) {
            return Some(format!("{target}: no heading with that anchor"));
        }
    }
    None
}

/// Every broken link under `dir`, as `file:line: why`, and how many links were read.
fn broken_links(dir: &Path) -> (Vec<String>, usize) {
    let mut files = Vec::new();
    markdown_files(dir, &mut files);
    let mut problems = Vec::new();
    let mut count = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in prose_lines(&text).iter().enumerate() {
            for target in link_targets(line) {
                count += 1;
                if let Some(why) = broken(file, &target) {
                    let shown = file.strip_prefix(dir).unwrap_or(file);
                    problems.push(format!("{}:{}: {why}", shown.display(), n + 1));
                }
            }
        }
    }
    (problems, count)
}

#[test]
fn every_relative_link_of_the_project_s_markdown_names_something_that_exists() {
    let (problems, count) = broken_links(&root());
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
    // The project's README links to every crate's: reading none means the walk is broken.
    assert!(count >= 8, "only {count} links read");
}

#[test]
fn a_link_to_a_missing_file_or_heading_is_found_and_code_is_not_read() {
    let dir = tempfile_dir();
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(
        dir.join("a/README.md"),
        "# A\n\n## Gating CI: `exit` codes\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("README.md"),
        "See [a](a/README.md), [gate](a/README.md#gating-ci-exit-codes) and [self](#top).\n\
         # Top\n\
         Not [here](gone.md), not [there](a/README.md#nowhere).\n\
         `[code](skipped.md)`\n```\n[fenced](skipped.md)\n```\n[web](https://example.com/x)\n",
    )
    .unwrap();
    let (problems, count) = broken_links(&dir);
    assert_eq!(count, 6, "{problems:?}");
    assert_eq!(
        problems,
        [
            "README.md:3: gone.md: no such file",
            "README.md:3: a/README.md#nowhere: no heading with that anchor",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh folder of this test's own under the build's temporary directory.
fn tempfile_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
