//! Turns the `no_run` examples of the README and of the crate's root docs into code that
//! `tests/doc_examples.rs` runs against servers on 127.0.0.1.
//!
//! It reads `../README.md` (fenced blocks whose info string holds `no_run`) and the `//!`
//! lines of `../src/lib.rs` (the same, rustdoc's hidden `# ` lines shown), and writes
//! `$OUT_DIR/doc_examples.rs`: one module per block, named after the nearest heading above
//! it (`readme_quick_start`, `lib_websocket`; a second block under one heading gets `_2`),
//! holding the block's code as it is written but for these changes:
//!
//! - rustdoc's hidden-line prefixes (`# `) are taken off;
//! - the block's `fn main(`, `async fn main(` or `async fn run(` is made `pub`, and a block
//!   of bare statements is wrapped in a `pub fn main()` as rustdoc wraps it;
//! - each string literal that is a URL of a placeholder host (`example.com` and its
//!   subdomains, `*.example`, `cloudflare-quic.com`, `localhost:8080`, Redis's
//!   `127.0.0.1:6379`) becomes `crate::local("…")`, which points the same scheme and path
//!   at the harness's servers at run time.
//!
//! Then `BLOCKS`, a table with each block's name, where it is, a function running it, and
//! the problems found in it (a hidden line in the README, which GitHub shows; a URL of a
//! real host, which the test could not serve; no entry point the harness can call). The
//! harness fails a block with problems, so they are reported as test failures, with the
//! block's place, rather than as a broken build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A `no_run` block found in a document.
struct Block {
    /// `readme` or `lib`: the module name's prefix.
    prefix: &'static str,
    /// The document, relative to the workspace (`README.md`, `src/lib.rs`).
    file: &'static str,
    /// The line of the opening fence, from 1.
    line: usize,
    /// The nearest heading above the block.
    heading: String,
    /// The block's lines, as written (for `src/lib.rs`, without `//! `).
    code: Vec<String>,
}

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let root = manifest_dir
        .parent()
        .expect("feature-tests/ is inside the workspace")
        .to_path_buf();
    let readme = root.join("README.md");
    let lib = root.join("src/lib.rs");
    println!("cargo:rerun-if-changed={}", readme.display());
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rerun-if-changed=build.rs");

    let mut blocks = Vec::new();
    let readme_lines = read(&readme).lines().map(str::to_owned).collect::<Vec<_>>();
    blocks.extend(no_run_blocks("readme", "README.md", &readme_lines));
    // The crate's root docs: the `//!` lines, without the marker and one space, each kept
    // at its line number (other lines read as blank, outside any block).
    let lib_lines = read(&lib)
        .lines()
        .map(|line| match line.strip_prefix("//!") {
            Some(doc) => doc.strip_prefix(' ').unwrap_or(doc).to_owned(),
            None => String::new(),
        })
        .collect::<Vec<_>>();
    blocks.extend(no_run_blocks("lib", "src/lib.rs", &lib_lines));

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out_dir.join("doc_examples.rs");
    std::fs::write(&out, generate(&blocks))
        .unwrap_or_else(|error| panic!("writing {}: {error}", out.display()));
}

/// The text of one of the repository's files.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// The fenced code blocks of `lines` (Markdown) whose info string holds `no_run`, each with
/// the nearest heading above it.
fn no_run_blocks(prefix: &'static str, file: &'static str, lines: &[String]) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut heading = String::from("top");
    // The fence that opened the block we are in, its info string, and its first line.
    let mut open: Option<(String, String, usize)> = None;
    let mut code = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        match &open {
            None => {
                if let Some(fence) = fence(trimmed) {
                    let info = trimmed[fence.len()..].trim().to_owned();
                    open = Some((fence, info, index + 1));
                    code.clear();
                } else if let Some(title) = heading_text(trimmed) {
                    heading = title;
                }
            }
            Some((fence_open, info, start)) => {
                if trimmed.starts_with(fence_open.as_str())
                    && trimmed[fence_open.len()..].trim().is_empty()
                {
                    if info.split(',').any(|token| token.trim() == "no_run") {
                        blocks.push(Block {
                            prefix,
                            file,
                            line: *start,
                            heading: heading.clone(),
                            code: std::mem::take(&mut code),
                        });
                    }
                    open = None;
                } else {
                    code.push(line.clone());
                }
            }
        }
    }
    if let Some((_, info, start)) = open {
        if info.split(',').any(|token| token.trim() == "no_run") {
            panic!("{file}:{start}: a code block that is never closed");
        }
    }
    blocks
}

/// The fence (three or more backticks or tildes) a line opens with, if any.
fn fence(line: &str) -> Option<String> {
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let fence = line
        .chars()
        .take_while(|c| *c == marker)
        .collect::<String>();
    (fence.len() >= 3).then_some(fence)
}

/// The text of an ATX heading (`## Quick start`), if the line is one.
fn heading_text(line: &str) -> Option<String> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.starts_with(' ') {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim().to_owned())
}

/// `Quick start` → `quick_start`; `HTTP/3` → `http_3`.
fn slug(heading: &str) -> String {
    let mut slug = String::new();
    for c in heading.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let slug = slug.trim_end_matches('_').to_owned();
    if slug.is_empty() {
        "block".to_owned()
    } else {
        slug
    }
}

/// The generated file: the modules, then the table.
fn generate(blocks: &[Block]) -> String {
    let mut out = String::from(
        "// Generated by feature-tests/build.rs from README.md and src/lib.rs: edit those.\n\n",
    );
    let mut table = String::from("pub const BLOCKS: &[crate::Block] = &[\n");
    let mut taken: Vec<String> = Vec::new();
    for block in blocks {
        let base = format!("{}_{}", block.prefix, slug(&block.heading));
        let mut name = base.clone();
        let mut ordinal = 1;
        while taken.contains(&name) {
            ordinal += 1;
            name = format!("{base}_{ordinal}");
        }
        taken.push(name.clone());
        let prepared = prepare(block);
        let _ = writeln!(
            out,
            "/// {}:{}, under \"{}\".",
            block.file, block.line, block.heading
        );
        // A whole program (`fn main`) is what a reader pastes into a crate of their own: it
        // builds without a warning there, so here too. What rustdoc allows in a doctest is
        // allowed the fragments (`run`), which bind values they do not use.
        if !matches!(prepared.entry, Entry::Main) {
            let _ = writeln!(out, "#[allow(unused)]");
        }
        let _ = writeln!(out, "pub mod {name} {{");
        for line in prepared.code.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
        out.push_str("}\n\n");
        let run = match prepared.entry {
            Entry::Main => format!("|| crate::Outcome::into_result({name}::main())"),
            Entry::AsyncRun => {
                format!("|| crate::Outcome::into_result(crate::block_on({name}::run()))")
            }
            Entry::None => "|| Err(String::from(\"the block has no entry point\"))".to_owned(),
        };
        let _ = writeln!(
            table,
            "    crate::Block {{\n        name: {name:?},\n        source: \"{}:{}\",\n        \
             run: {run},\n        problems: &{:?},\n    }},",
            block.file, block.line, prepared.problems
        );
    }
    table.push_str("];\n");
    out.push_str(&table);
    out
}

/// How the harness calls a block.
enum Entry {
    /// `main()`, a `fn main` (with `#[tokio::main]` when it is async).
    Main,
    /// `run()` on a runtime of the harness's.
    AsyncRun,
    /// Neither: a problem.
    None,
}

/// A block's code as the generated module holds it.
struct Prepared {
    code: String,
    entry: Entry,
    problems: Vec<String>,
}

/// The changes of the module docs, applied to one block.
fn prepare(block: &Block) -> Prepared {
    let mut problems = Vec::new();
    let mut lines = Vec::new();
    for (offset, line) in block.code.iter().enumerate() {
        let trimmed = line.trim_start();
        // rustdoc's rule: `#` alone or `# ` hides a line, `##` shows one starting with `#`.
        let shown = if trimmed == "#" {
            Some(String::new())
        } else if let Some(hidden) = trimmed.strip_prefix("# ") {
            Some(hidden.to_owned())
        } else if trimmed.starts_with("##") {
            lines.push(line.replacen("##", "#", 1));
            continue;
        } else {
            None
        };
        match shown {
            Some(code) => {
                if block.prefix == "readme" {
                    problems.push(format!(
                        "{}:{}: `{}` is a rustdoc hidden line, which GitHub shows as it is: \
                         write the block whole, without `# ` lines",
                        block.file,
                        block.line + 1 + offset,
                        line.trim()
                    ));
                }
                lines.push(code);
            }
            None => lines.push(line.clone()),
        }
    }

    let mut entry = Entry::None;
    for line in &mut lines {
        for (item, public, found) in [
            ("fn main(", "pub fn main(", Entry::Main),
            ("async fn main(", "pub async fn main(", Entry::Main),
            ("async fn run(", "pub async fn run(", Entry::AsyncRun),
        ] {
            if line.starts_with(item) {
                *line = line.replacen(item, public, 1);
                if !matches!(entry, Entry::Main) {
                    entry = found;
                }
                break;
            }
        }
    }
    let mut code = lines.join("\n");
    let (rewritten, url_problems) = point_urls_here(&code);
    code = rewritten;
    for problem in url_problems {
        problems.push(format!("{}:{}: {problem}", block.file, block.line));
    }
    if matches!(entry, Entry::None) {
        if code.contains("fn run(") || code.contains("fn main(") {
            problems.push(format!(
                "{}:{}: the harness calls a top-level `fn main`, `async fn main` with \
                 `#[tokio::main]`, or `async fn run`; this block has none it can call",
                block.file, block.line
            ));
        } else {
            // Bare statements: rustdoc wraps them in `fn main`, returning what a last
            // `Ok::<(), E>(())` gives.
            let last = code.lines().rev().find(|line| !line.trim().is_empty());
            let returns = last.is_some_and(|line| line.trim_start().starts_with("Ok::<"));
            let signature = if returns {
                "pub fn main() -> Result<(), impl std::fmt::Debug> {"
            } else {
                "pub fn main() {"
            };
            code = format!("{signature}\n{code}\n}}");
            entry = Entry::Main;
        }
    }
    Prepared {
        code,
        entry,
        problems,
    }
}

/// `code` with each string literal that is a placeholder URL wrapped in `crate::local(…)`,
/// and the problems: URLs of hosts that are neither placeholders nor this machine.
fn point_urls_here(code: &str) -> (String, Vec<String>) {
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut problems = Vec::new();
    let mut at = 0;
    let mut copied = 0;
    let identifier =
        |i: usize| i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
    while at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = code[at..].find('\n').map_or(bytes.len(), |end| at + end);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                let mut depth = 0;
                while at < bytes.len() {
                    if code[at..].starts_with("/*") {
                        depth += 1;
                        at += 2;
                    } else if code[at..].starts_with("*/") {
                        depth -= 1;
                        at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        at += 1;
                    }
                }
            }
            // Raw strings (`r"…"`, `r#"…"#`, `br"…"`) and byte strings are left as they are.
            b'r' | b'b' if !identifier(at) && raw_or_byte_string_end(code, at).is_some() => {
                at = raw_or_byte_string_end(code, at).unwrap_or(bytes.len());
            }
            b'"' => {
                let start = at;
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at = (at + 1).min(bytes.len());
                let literal = &code[start..at];
                let value = &literal[1..literal.len().saturating_sub(1)];
                match classify(value) {
                    Url::Placeholder => {
                        out.push_str(&code[copied..start]);
                        let _ = write!(out, "crate::local({literal})");
                        copied = at;
                    }
                    Url::Internet(host) => problems.push(format!(
                        "{literal} would reach {host} on the Internet, where the harness \
                         cannot serve it: use a placeholder host (example.com, *.example, \
                         ...), which it points at its servers"
                    )),
                    Url::Local | Url::Other => {}
                }
            }
            b'\'' => {
                // A char literal (`'"'`, `'\''`) or a lifetime (`'a`).
                if bytes.get(at + 1) == Some(&b'\\') {
                    at += 2;
                    while at < bytes.len() && bytes[at] != b'\'' {
                        at += 1;
                    }
                    at += 1;
                } else if let Some(c) = code[at + 1..].chars().next() {
                    let after = at + 1 + c.len_utf8();
                    at = if bytes.get(after) == Some(&b'\'') {
                        after + 1
                    } else {
                        at + 1
                    };
                } else {
                    at += 1;
                }
            }
            _ => at += 1,
        }
    }
    out.push_str(&code[copied.min(code.len())..]);
    (out, problems)
}

/// Where a raw or byte string starting at `at` ends, if one starts there.
fn raw_or_byte_string_end(code: &str, at: usize) -> Option<usize> {
    let rest = &code[at..];
    let rest_after_b = rest.strip_prefix('b').unwrap_or(rest);
    if let Some(raw) = rest_after_b.strip_prefix('r') {
        let hashes = raw.chars().take_while(|c| *c == '#').count();
        if raw[hashes..].starts_with('"') {
            let closing = format!("\"{}", "#".repeat(hashes));
            let body_start = at + (rest.len() - raw.len()) + hashes + 1;
            let end = code[body_start..].find(&closing)?;
            return Some(body_start + end + closing.len());
        }
        return None;
    }
    if rest.starts_with("b\"") {
        let bytes = code.as_bytes();
        let mut i = at + 2;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        return Some((i + 1).min(bytes.len()));
    }
    None
}

/// What a string literal's text is, as far as the harness cares.
enum Url {
    /// A URL of a placeholder host: pointed at the harness's servers.
    Placeholder,
    /// A URL of this machine (`127.0.0.1:2`, `localhost:3000`): left as it is.
    Local,
    /// A URL of another host: a problem.
    Internet(String),
    /// Anything else.
    Other,
}

fn classify(value: &str) -> Url {
    let Some((scheme, rest)) = value.split_once("://") else {
        return Url::Other;
    };
    if !["http", "https", "ws", "wss", "redis"].contains(&scheme) || value.contains('\\') {
        return Url::Other;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = match authority.strip_prefix('[') {
        // An IPv6 address: `[::1]:8080`.
        Some(v6) => match v6.split_once(']') {
            Some((address, rest)) => (format!("[{address}]"), rest.strip_prefix(':')),
            None => (authority.to_owned(), None),
        },
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (authority.to_owned(), None),
        },
    };
    let host = host.to_ascii_lowercase();
    let placeholder = host == "example.com"
        || host.ends_with(".example.com")
        || host == "example"
        || host.ends_with(".example")
        || host == "cloudflare-quic.com"
        || (host == "localhost" && port == Some("8080"))
        || (scheme == "redis" && host == "127.0.0.1" && port == Some("6379"));
    if placeholder {
        Url::Placeholder
    } else if host == "localhost" || host.starts_with("127.") || host == "[::1]" {
        Url::Local
    } else {
        Url::Internet(host)
    }
}
