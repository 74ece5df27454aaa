//! The repository's documents stand on their own:
//! - `nothing_points_outside_the_repository`: no tracked text file names the
//!   design notes that lived beside the repository during development;
//! - `code_cites_documents_by_their_path`: Rust and TOML files name a document
//!   of `docs/` by its path (`docs/RULES.md`), never by a bare file name;
//! - `markdown_links_resolve`: every relative link in a tracked markdown file
//!   (README.md, docs/*.md, ...) names a file that exists, and an anchor, where
//!   it has one, names a heading of that file;
//! - `rules_doc_tables_match_the_code`: the presets table of docs/RULES.md
//!   holds each preset's value of every option, and its options table names
//!   every key a rules file takes;
//! - `checkers_flag_what_they_should`: both checks on made-up text, so that a
//!   check that finds nothing is known to be able to find something.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use shax_core::{Preset, Rules};

/// Text that points outside the repository (split with `concat!` so that this
/// file does not match itself).
const OUTSIDE: [&str; 3] = [
    concat!("..", "/shared"),
    concat!("shared", "/RULES"),
    concat!("BURN", "-NOTES"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files: tracked or new and not ignored, as git lists them;
/// without git, every file below the root except `target/`, `runs/` and `.git/`.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output();
    match listed {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| root.join(p))
            .filter(|p| p.is_file())
            .collect(),
        _ => {
            let mut files = Vec::new();
            walk(root, &mut files);
            files
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !matches!(name.to_str(), Some("target" | "runs" | ".git")) {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// The file's text, or `None` for a binary file (a NUL byte, or not UTF-8).
fn text_of(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// `name:line: text` for each line of `text` that points outside the repository.
fn outside_pointers(name: &str, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| OUTSIDE.iter().any(|p| line.contains(p)))
        .map(|(i, line)| format!("{name}:{}: {}", i + 1, line.trim()))
        .collect()
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn nothing_points_outside_the_repository() {
    let root = root();
    let files = repository_files(&root);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "the file list misses README.md: {} files",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        if let Some(text) = text_of(file) {
            found.extend(outside_pointers(&relative(&root, file), &text));
        }
    }
    assert!(
        found.is_empty(),
        "these lines point to files outside the repository (use docs/ instead):\n{}",
        found.join("\n")
    );
}

/// `name:line: text` for each line that names one of `docs` (file names such as
/// `GUIDE.md`) without the `docs/` before it.
fn bare_citations(name: &str, text: &str, docs: &[String]) -> Vec<String> {
    let bare = |line: &str, doc: &str| {
        line.match_indices(doc)
            .any(|(at, _)| !line[..at].ends_with("docs/"))
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| docs.iter().any(|d| bare(line, d)))
        .map(|(i, line)| format!("{name}:{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn code_cites_documents_by_their_path() {
    let root = root();
    let docs: Vec<String> = fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert!(docs.len() >= 2, "docs/ holds only {docs:?}");
    let mut found = Vec::new();
    for file in repository_files(&root) {
        if !file.extension().is_some_and(|e| e == "rs" || e == "toml") {
            continue;
        }
        if let Some(text) = text_of(&file) {
            found.extend(bare_citations(&relative(&root, &file), &text, &docs));
        }
    }
    assert!(
        found.is_empty(),
        "these lines cite a document without its path (write docs/<name>.md):\n{}",
        found.join("\n")
    );
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// The targets of the inline links `[text](target)` on a line, code spans skipped.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 1 {
            continue; // inside a code span
        }
        let mut rest = part;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push(target.to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped except `-`
/// and `_`, each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown text's headings (a repeated heading gets `-1`, `-2`, ...).
fn anchors(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for (_, line) in prose_lines(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while !out.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
    }
    out
}

/// Why the link `target` in the markdown file `file` does not resolve, if it does not.
fn broken(file: &Path, text: &str, target: &str) -> Option<String> {
    if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let dest = if path.is_empty() {
        file.to_path_buf()
    } else {
        file.parent().unwrap_or(Path::new("")).join(path)
    };
    if !dest.exists() {
        return Some(format!("{target}: no file {}", dest.display()));
    }
    let anchor = anchor?;
    let dest_text = if path.is_empty() {
        text.to_string()
    } else if dest.extension().is_some_and(|e| e == "md") {
        fs::read_to_string(&dest).ok()?
    } else {
        return None; // anchors into other kinds of file are not checked
    };
    (!anchors(&dest_text).contains(anchor)).then(|| format!("{target}: no heading #{anchor}"))
}

/// `name:line: why` for each link of a markdown file that does not resolve.
fn broken_links(name: &str, file: &Path, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        for target in link_targets(line) {
            if let Some(why) = broken(file, text, &target) {
                out.push(format!("{name}:{n}: {why}"));
            }
        }
    }
    out
}

#[test]
fn markdown_links_resolve() {
    let root = root();
    let markdown: Vec<PathBuf> = repository_files(&root)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
        .collect();
    for must in ["README.md", "docs/RULES.md", "docs/BACKENDS.md"] {
        assert!(
            markdown.contains(&root.join(must)),
            "{must} is missing from the repository"
        );
    }
    let mut found = Vec::new();
    let mut links = 0;
    for file in &markdown {
        let text = fs::read_to_string(file).expect("markdown files are UTF-8");
        links += prose_lines(&text)
            .iter()
            .map(|(_, l)| link_targets(l).len())
            .sum::<usize>();
        found.extend(broken_links(&relative(&root, file), file, &text));
    }
    assert!(
        links > 0,
        "no links found at all: the link scanner is broken"
    );
    assert!(
        found.is_empty(),
        "these markdown links do not resolve:\n{}",
        found.join("\n")
    );
}

/// The table rows (`|`-separated cells, backticks and spaces trimmed) of the
/// section of `text` under the heading `heading`, up to the next `## ` heading.
fn section_rows(text: &str, heading: &str) -> Vec<Vec<String>> {
    let Some(start) = text.find(&format!("\n{heading}\n")) else {
        return Vec::new();
    };
    let body = &text[start + heading.len() + 2..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect()
}

/// A preset's options as the code writes them in a rules file: key -> value.
fn preset_options(p: Preset) -> HashMap<String, String> {
    Rules::preset(p)
        .to_toml()
        .lines()
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
        .collect()
}

#[test]
fn rules_doc_tables_match_the_code() {
    let text = fs::read_to_string(root().join("docs/RULES.md")).expect("docs/RULES.md");
    let presets = section_rows(&text, "## The presets");
    let header = presets.first().expect("a presets table");
    let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(header[1..], names, "the presets table's columns");
    let code: Vec<HashMap<String, String>> = Preset::ALL.into_iter().map(preset_options).collect();
    let mut keys: Vec<&String> = code[0].keys().filter(|k| *k != "preset").collect();
    keys.sort();
    let mut rows: Vec<&String> = presets[1..].iter().map(|r| &r[0]).collect();
    rows.sort();
    assert_eq!(rows, keys, "the presets table's rows");
    for row in &presets[1..] {
        for (i, value) in row[1..].iter().enumerate() {
            assert_eq!(
                value, &code[i][&row[0]],
                "docs/RULES.md says {} = {value} in {}",
                row[0], names[i]
            );
        }
    }
    let options = section_rows(&text, "## Options and the rules file");
    let documented: HashSet<&str> = options.iter().map(|r| r[0].as_str()).collect();
    for key in code[0].keys() {
        assert!(
            documented.contains(key.as_str()),
            "the options table of docs/RULES.md lacks `{key}`"
        );
    }
}

#[test]
fn checkers_flag_what_they_should() {
    let text = format!("fine\nsee {}/NOTES.md\nalso fine\n", OUTSIDE[0]);
    assert_eq!(
        outside_pointers("x.md", &text),
        vec![format!("x.md:2: see {}/NOTES.md", OUTSIDE[0])]
    );
    assert!(outside_pointers("x.md", "runs/shared/big is an example path\n").is_empty());
    let docs = ["GUIDE.md".to_string()];
    assert_eq!(
        bare_citations(
            "x.rs",
            "/// see `docs/GUIDE.md`\n/// as in `GUIDE.md`\n",
            &docs
        ),
        vec!["x.rs:2: /// as in `GUIDE.md`".to_string()]
    );

    assert_eq!(slug("Training: `shax train`"), "training-shax-train");
    let table = "# T\n\n## A\n\n| k | v |\n|---|---|\n| `x` | `1` |\n\n## B\n\n| y | 2 |\n";
    assert_eq!(
        section_rows(table, "## A"),
        vec![vec!["k", "v"], vec!["x", "1"]]
    );
    assert_eq!(
        slug("Difficulty tiers, `shax play` and the bot API"),
        "difficulty-tiers-shax-play-and-the-bot-api"
    );
    assert_eq!(
        link_targets("[a](b.md#c) and `[x](not-a-link)` and [d](e \"title\")"),
        vec!["b.md#c".to_string(), "e".to_string()]
    );

    let dir = std::env::temp_dir().join(format!("shax-docs-test-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("a.md");
    let text = "# Title\n\n## Part two\n\n[ok](a.md#part-two) [self](#title) [web](https://x.invalid)\n\
                [gone](missing.md) [bad anchor](#nowhere)\n```\n[in code](missing-too.md)\n```\n";
    fs::write(&file, text).expect("write");
    let found = broken_links("a.md", &file, text);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("a.md:6: missing.md: no file"),
        "{found:?}"
    );
    assert_eq!(found[1], "a.md:6: #nowhere: no heading #nowhere");
}
