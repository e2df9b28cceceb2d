//! The crate's layers, kept by the build: every `crate::…`, `super::…` and network-crate
//! path in `src/` is read, placed in its layer, and held to what that layer may import (see
//! `ARCHITECTURE.md`).
//!
//! The reader strips comments (doc tests with them), string and character literals, then
//! follows `use` trees (grouped, nested, over several lines), paths in code, `super::`
//! climbs (from inline modules such as `mod tests` too) and the crate root's re-exports
//! (`crate::Environment` is `environment`'s). A top-level module in no layer fails the test,
//! so a new module has to be placed before it builds green.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The layers, bottom to top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    /// `infra`: Infra Standard and HTTP lexical primitives.
    Infra,
    /// `error`: the error types every layer returns.
    Error,
    /// The spec's types and the algorithms on them: headers, request, response, body, ...
    Spec,
    /// `net`: the network layer under the `Transport` trait (hyper, rustls, decoding).
    Net,
    /// `fetch`: the fetch algorithm, over the spec types and a `Transport`.
    Fetch,
    /// `interop`: conversions to and from the `http` crate's types.
    Interop,
    /// `client`: `Client`, `ClientBuilder` and the free `fetch()`.
    Client,
    /// `lib.rs`, which declares and re-exports everything.
    Root,
}

impl Layer {
    /// What a module of this layer may import, itself included.
    fn may_import(self) -> &'static [Layer] {
        use Layer::*;
        match self {
            Infra => &[Infra],
            Error => &[Error, Infra],
            Spec => &[Spec, Error, Infra],
            Net => &[Net, Error, Infra],
            Fetch => &[Fetch, Spec, Net, Error, Infra],
            Interop => &[Interop, Spec, Net, Error, Infra],
            Client => &[Client, Fetch, Spec, Net, Error, Infra],
            Root => &[Root, Client, Interop, Fetch, Spec, Net, Error, Infra],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Layer::Infra => "infra",
            Layer::Error => "error",
            Layer::Spec => "spec types",
            Layer::Net => "network layer",
            Layer::Fetch => "fetch algorithm",
            Layer::Interop => "interop",
            Layer::Client => "client",
            Layer::Root => "crate root",
        }
    }
}

/// Every top-level module of the crate and its layer. A module missing here fails the
/// test: place it (ARCHITECTURE.md says where a new feature goes).
const MODULES: &[(&str, Layer)] = &[
    ("infra", Layer::Infra),
    ("error", Layer::Error),
    ("peer", Layer::Infra),
    ("upgrade", Layer::Infra),
    ("abort", Layer::Spec),
    ("blob", Layer::Spec),
    ("blob_url", Layer::Spec),
    ("body", Layer::Spec),
    ("cookie", Layer::Spec),
    ("data_url", Layer::Spec),
    ("environment", Layer::Spec),
    // The `text/event-stream` parser (HTML's server-sent events), for `Response` and
    // `EventSource`.
    ("event_stream", Layer::Spec),
    ("form_data", Layer::Spec),
    ("headers", Layer::Spec),
    ("mime", Layer::Spec),
    ("request", Layer::Spec),
    ("response", Layer::Spec),
    ("redirect", Layer::Spec),
    ("timing", Layer::Spec),
    ("net", Layer::Net),
    // A `Transport` for tests (the `mock` feature): beside the network layer, which it
    // stands in for.
    ("mock", Layer::Net),
    // Record and replay (the `record` feature): beside the network layer, as `mock`.
    ("record", Layer::Net),
    ("fetch", Layer::Fetch),
    ("interop", Layer::Interop),
    ("client", Layer::Client),
    // reqwest's request builder over `Client::fetch_request`.
    ("request_builder", Layer::Client),
    // reqwest's `multipart::{Form, Part}` over `FormData`, for the request builder.
    ("multipart", Layer::Client),
    // The HTTP cache's stores, from `fetch/http_cache`, for `ClientBuilder`.
    ("cache", Layer::Client),
    ("retry", Layer::Client),
    // HTML's `EventSource`: a fetch of the client's, reconnected.
    ("event_source", Layer::Client),
    ("websocket", Layer::Client),
    // The spans of the `tracing` feature around a fetch.
    ("trace", Layer::Client),
    // The blocking client: the async `Client` and its request builder on a thread of its
    // own, so it stands above them.
    ("blocking", Layer::Client),
    // `Client` as a tower service (the `tower` feature): it binds the client to the `http`
    // crate's types through `interop`, so it stands above both, with the crate root.
    ("middleware", Layer::Root),
    // The guide for reqwest users: documentation only.
    ("coming_from_reqwest", Layer::Root),
];

/// The crates of the network stack: only the network layer names them.
const NETWORK_CRATES: &[&str] = &[
    "hyper",
    "hyper_util",
    "h2",
    "rustls",
    "rustls_pki_types",
    "tokio_rustls",
    "webpki_roots",
    "compression_codecs",
    "quinn",
    "h3",
    "h3_quinn",
];

fn layer_of_module(module: &str) -> Option<Layer> {
    MODULES
        .iter()
        .find(|(name, _)| *name == module)
        .map(|&(_, layer)| layer)
}

// ----------------------------------------------------------------------------------------
// Lexing: code without comments and literals
// ----------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The tokens that matter for paths: identifiers, `::` and single punctuation; comments,
/// string, byte-string, raw-string and character literals, and lifetimes are skipped.
fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skips from `i` to just past the end of a quoted literal that closes with `quote`,
    // honouring backslash escapes; counts the lines it crosses.
    let skip_quoted = |i: &mut usize, line: &mut usize, quote: char| {
        while *i < chars.len() {
            match chars[*i] {
                '\\' => {
                    if chars.get(*i + 1) == Some(&'\n') {
                        *line += 1;
                    }
                    *i += 2;
                }
                '\n' => {
                    *line += 1;
                    *i += 1;
                }
                c if c == quote => {
                    *i += 1;
                    return;
                }
                _ => *i += 1,
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            _ if c.is_whitespace() => i += 1,
            '/' if at(i + 1) == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => {
                i += 1;
                skip_quoted(&mut i, &mut line, '"');
            }
            '\'' => {
                if at(i + 1) == '\\' {
                    // A character literal with an escape: '\n', '\'', '\u{FFFD}'.
                    i += 2;
                    skip_quoted(&mut i, &mut line, '\'');
                } else if at(i + 2) == '\'' {
                    // A character literal: 'a', '"'.
                    i += 3;
                } else {
                    // A lifetime or a label: the name that follows is harmless.
                    i += 1;
                }
            }
            _ if is_ident_start(c) => {
                let start = i;
                while i < chars.len() && is_ident_continue(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                match (word.as_str(), at(i)) {
                    // Raw and byte strings: r"…", r#"…"#, br"…", b"…", and b'…'.
                    ("r" | "br", '"' | '#') if word == "r" || word == "br" => {
                        let mut hashes = 0;
                        while at(i) == '#' {
                            hashes += 1;
                            i += 1;
                        }
                        if at(i) != '"' {
                            // `r#ident`, a raw identifier.
                            let start = i;
                            while i < chars.len() && is_ident_continue(chars[i]) {
                                i += 1;
                            }
                            let word: String = chars[start..i].iter().collect();
                            tokens.push(Token {
                                tok: Tok::Ident(word),
                                line,
                            });
                            continue;
                        }
                        i += 1;
                        loop {
                            if i >= chars.len() {
                                break;
                            }
                            if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                                i += 1 + hashes;
                                break;
                            }
                            if chars[i] == '\n' {
                                line += 1;
                            }
                            i += 1;
                        }
                    }
                    ("b", '"') => {
                        i += 1;
                        skip_quoted(&mut i, &mut line, '"');
                    }
                    ("b", '\'') => {
                        i += 1;
                        skip_quoted(&mut i, &mut line, '\'');
                    }
                    _ => tokens.push(Token {
                        tok: Tok::Ident(word),
                        line,
                    }),
                }
            }
            ':' if at(i + 1) == ':' => {
                tokens.push(Token {
                    tok: Tok::Path,
                    line,
                });
                i += 2;
            }
            _ => {
                tokens.push(Token {
                    tok: Tok::Punct(c),
                    line,
                });
                i += 1;
            }
        }
    }
    tokens
}

// ----------------------------------------------------------------------------------------
// Paths
// ----------------------------------------------------------------------------------------

/// One path as written, expanded out of its `use` group.
#[derive(Clone, Debug)]
struct WrittenPath {
    segments: Vec<String>,
    line: usize,
    /// Whether a `(` follows: a function call (`crate::fetch(…)` is the re-exported
    /// function, `crate::fetch::…` the module).
    called: bool,
}

fn ident(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i).map(|t| &t.tok) {
        Some(Tok::Ident(word)) => Some(word),
        _ => None,
    }
}

fn is(tokens: &[Token], i: usize, tok: &Tok) -> bool {
    tokens.get(i).map(|t| &t.tok) == Some(tok)
}

/// Reads the path (or `use` tree) starting at `*i`, appending every leaf under `prefix` to
/// `out`, and leaves `*i` after it.
fn read_tree(tokens: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<WrittenPath>) {
    let mut segments = prefix.to_vec();
    let line = tokens.get(*i).map_or(0, |t| t.line);
    loop {
        if let Some(word) = ident(tokens, *i) {
            segments.push(word.to_owned());
            *i += 1;
            if is(tokens, *i, &Tok::Path) {
                *i += 1;
                continue;
            }
            let called = is(tokens, *i, &Tok::Punct('('));
            // `use a::b as c`: the path is `a::b`.
            if ident(tokens, *i) == Some("as") {
                *i += 2;
            }
            out.push(WrittenPath {
                segments,
                line,
                called,
            });
            return;
        }
        if is(tokens, *i, &Tok::Punct('{')) {
            *i += 1;
            while *i < tokens.len() && !is(tokens, *i, &Tok::Punct('}')) {
                let before = *i;
                read_tree(tokens, i, &segments, out);
                if is(tokens, *i, &Tok::Punct(',')) {
                    *i += 1;
                }
                if *i == before {
                    *i += 1;
                }
            }
            *i += 1;
            return;
        }
        if is(tokens, *i, &Tok::Punct('*')) {
            *i += 1;
            segments.push("*".to_owned());
        }
        // The end of the path (`;`, `<`, `)`, …).
        out.push(WrittenPath {
            segments,
            line,
            called: false,
        });
        return;
    }
}

/// A path as found in a file, with the module it was written in.
#[derive(Clone, Debug)]
struct FoundPath {
    /// The module the path is written in (`["fetch", "http", "tests"]`).
    module: Vec<String>,
    path: WrittenPath,
}

/// The paths of `source`, a file of module `file_module`, that start at `crate`, `$crate`,
/// `super` or a network crate.
fn paths_in(file_module: &[String], source: &str) -> Vec<FoundPath> {
    let tokens = tokenize(source);
    let mut found = Vec::new();
    // Inline modules (`mod tests { … }`): their names and the brace depth inside them.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let module = || {
            let mut module = file_module.to_vec();
            module.extend(inline.iter().map(|(name, _)| name.clone()));
            module
        };
        match &tokens[i].tok {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|&(_, inside)| inside == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(word) if word == "mod" => {
                if let (Some(name), true) =
                    (ident(&tokens, i + 1), is(&tokens, i + 2, &Tok::Punct('{')))
                {
                    depth += 1;
                    inline.push((name.to_owned(), depth));
                    i += 3;
                } else {
                    i += 1;
                }
            }
            Tok::Ident(word)
                if (word == "crate"
                    || word == "super"
                    || NETWORK_CRATES.contains(&word.as_str()))
                    && is(&tokens, i + 1, &Tok::Path)
                    && !(i > 0
                        && (is(&tokens, i - 1, &Tok::Path)
                            || is(&tokens, i - 1, &Tok::Punct('.')))) =>
            {
                let module = module();
                let mut paths = Vec::new();
                read_tree(&tokens, &mut i, &[], &mut paths);
                found.extend(paths.into_iter().map(|path| FoundPath {
                    module: module.clone(),
                    path,
                }));
            }
            _ => i += 1,
        }
    }
    found
}

// ----------------------------------------------------------------------------------------
// The check
// ----------------------------------------------------------------------------------------

/// What the crate root re-exports: a name (`Environment`) and the top-level module it
/// comes from (`environment`).
#[derive(Debug, Default)]
struct RootExports(HashMap<String, String>);

impl RootExports {
    /// Reads the `pub use` items of `lib.rs`.
    fn read(lib_rs: &str) -> RootExports {
        let tokens = tokenize(lib_rs);
        let mut exports = HashMap::new();
        let mut i = 0;
        while i + 1 < tokens.len() {
            if ident(&tokens, i) == Some("pub") && ident(&tokens, i + 1) == Some("use") {
                i += 2;
                let mut paths = Vec::new();
                read_tree(&tokens, &mut i, &[], &mut paths);
                for path in paths {
                    if let (Some(module), Some(name)) =
                        (path.segments.first(), path.segments.last())
                    {
                        exports.insert(name.clone(), module.clone());
                    }
                }
            } else {
                i += 1;
            }
        }
        RootExports(exports)
    }
}

/// An import that breaks the layering.
#[derive(Debug)]
struct Violation {
    file: String,
    line: usize,
    what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.what)
    }
}

/// The module path of a file under `src/`: `fetch/http.rs` is `["fetch", "http"]`,
/// `fetch/mod.rs` is `["fetch"]`, `lib.rs` is `[]`.
fn module_of_file(relative: &str) -> Vec<String> {
    let without = relative.trim_end_matches(".rs");
    let mut module: Vec<String> = without.split('/').map(str::to_owned).collect();
    if module
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        module.pop();
    }
    module
}

/// The path from the crate root that `found` names, `crate`, `super` and `self` resolved
/// against the module it is written in.
fn absolute_path(found: &FoundPath) -> Result<Vec<String>, String> {
    let segments = &found.path.segments;
    let mut absolute: Vec<String> = found.module.clone();
    let mut rest = segments.as_slice();
    while let Some((head, tail)) = rest.split_first() {
        match head.as_str() {
            "crate" => absolute.clear(),
            "super" => {
                if absolute.pop().is_none() {
                    return Err(format!(
                        "`{}` climbs above the crate root",
                        segments.join("::")
                    ));
                }
            }
            "self" => {}
            _ => break,
        }
        rest = tail;
    }
    absolute.extend(rest.iter().cloned());
    Ok(absolute)
}

/// The layer a path leads to, or why it cannot be placed.
fn target_layer(found: &FoundPath, exports: &RootExports) -> Result<(Layer, String), String> {
    let first = found.path.segments.first().map(String::as_str);
    if let Some(first) = first.filter(|first| NETWORK_CRATES.contains(first)) {
        return Ok((Layer::Net, format!("the {first} crate")));
    }
    let absolute = absolute_path(found)?;
    let written = format!("crate::{}", absolute.join("::"));
    let Some(top) = absolute.first() else {
        return Ok((Layer::Root, "the crate root".to_owned()));
    };
    if top == "*" {
        return Ok((Layer::Root, "a glob of the crate root".to_owned()));
    }
    let is_module = layer_of_module(top).is_some();
    let exported = exports.0.get(top.as_str());
    // `crate::fetch(…)` is the function the root re-exports; `crate::fetch::…` the module.
    let module = match exported {
        Some(module) if !is_module || (absolute.len() == 1 && found.path.called) => module,
        _ => top,
    };
    match layer_of_module(module) {
        Some(layer) => Ok((layer, written)),
        None => Err(format!(
            "`{written}` names nothing this check knows: add its module to MODULES"
        )),
    }
}

/// The layering violations of one file, `relative` to `src/`.
fn check_file(relative: &str, source: &str, exports: &RootExports) -> Vec<Violation> {
    let file = format!("src/{relative}");
    let file_module = module_of_file(relative);
    let from = match file_module.first() {
        None => Layer::Root,
        Some(top) => match layer_of_module(top) {
            Some(layer) => layer,
            None => {
                return vec![Violation {
                    file,
                    line: 1,
                    what: format!(
                        "module `{top}` is in no layer: add it to MODULES in tests/layering.rs \
                         (ARCHITECTURE.md says where a new feature goes)"
                    ),
                }];
            }
        },
    };
    let mut violations = Vec::new();
    for found in paths_in(&file_module, source) {
        let line = found.path.line;
        match target_layer(&found, exports) {
            Ok((to, what)) if !from.may_import().contains(&to) => {
                let allowed: Vec<&str> = from.may_import().iter().map(|l| l.name()).collect();
                violations.push(Violation {
                    file: file.clone(),
                    line,
                    what: format!(
                        "{} ({}) imports {what} ({}); it may import only: {}",
                        file_module.join("::"),
                        from.name(),
                        to.name(),
                        allowed.join(", ")
                    ),
                });
            }
            Ok(_) => {}
            Err(what) => violations.push(Violation {
                file: file.clone(),
                line,
                what,
            }),
        }
    }
    violations
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {dir:?}: {e}"));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
    };
    let exports = RootExports::read(&read(&src.join("lib.rs")));
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "src/ holds the crate: found {files:?}");
    let mut violations = Vec::new();
    let mut read_paths = 0;
    for path in &files {
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let source = read(path);
        read_paths += paths_in(&module_of_file(&relative), &source).len();
        violations.extend(check_file(&relative, &source, &exports));
    }
    // The reader sees the crate's imports (several hundred), not a few.
    assert!(read_paths > 300, "only {read_paths} paths read in src/");
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        violations.is_empty(),
        "{} import(s) break the layering (see ARCHITECTURE.md):\n{}",
        violations.len(),
        report.join("\n")
    );
}

// ----------------------------------------------------------------------------------------
// The checker, on sources made to break the rules
// ----------------------------------------------------------------------------------------

fn exports() -> RootExports {
    RootExports::read(
        "pub mod client;\n\
         pub use client::{Client, ClientBuilder, fetch};\n\
         pub use environment::Environment;\n\
         pub use error::{Error, NetworkError};",
    )
}

/// The violations of `source` as file `relative`, as `line: what` strings.
fn violations(relative: &str, source: &str) -> Vec<String> {
    check_file(relative, source, &exports())
        .iter()
        .map(|v| format!("{}: {}", v.line, v.what))
        .collect()
}

#[test]
fn a_spec_type_importing_the_network_layer_is_reported() {
    let found = violations(
        "body.rs",
        "use bytes::Bytes;\nuse crate::net::ResponseBody;\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .starts_with("2: body (spec types) imports crate::net::ResponseBody (network layer)"),
        "{found:?}"
    );
}

#[test]
fn a_spec_type_may_import_other_spec_types_and_the_bottom() {
    let source = "use crate::blob::Blob;\nuse crate::error::{Error, NetworkError};\n\
                  use crate::form_data::{self, FormData};\nfn f() -> crate::Error { todo!() }\n";
    assert_eq!(violations("body.rs", source), Vec::<String>::new());
}

#[test]
fn grouped_multi_line_use_trees_are_read_leaf_by_leaf() {
    let source = "use crate::{\n    headers::Headers,\n    fetch::{\n        cors,\n        scheme::scheme_fetch as fetch_scheme,\n    },\n    net::*,\n};\n";
    let found = violations("request.rs", source);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.iter().any(|v| v.contains("crate::fetch::cors")));
    assert!(
        found
            .iter()
            .any(|v| v.contains("crate::fetch::scheme::scheme_fetch"))
    );
    assert!(found.iter().any(|v| v.contains("crate::net::*")));
}

#[test]
fn paths_in_code_are_read_as_well_as_use_items() {
    let found = violations(
        "response.rs",
        "fn f() {\n    let x = crate::fetch::bad_port::is_bad_port(1);\n}\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("2: "), "{found:?}");
}

#[test]
fn super_climbs_out_of_a_folder_are_resolved() {
    assert_eq!(
        violations(
            "net/body.rs",
            "use super::pool::Pooled;\nuse super::super::error::NetworkError;\n"
        ),
        Vec::<String>::new()
    );
    let found = violations("net/body.rs", "use super::super::request::Request;\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("net::body (network layer) imports crate::request::Request (spec types)"),
        "{found:?}"
    );
    let found = violations(
        "headers/list.rs",
        "use super::super::{mime, fetch::cors};\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn super_in_an_inline_module_climbs_from_that_module() {
    let source = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    mod inner { use super::super::a; }\n    use super::super::net::ResponseBody;\n}\nuse super::fetch;\n";
    let found = violations("body.rs", source);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("6: ") && found[0].contains("crate::net::ResponseBody"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("8: ") && found[1].contains("crate::fetch"),
        "{found:?}"
    );
}

#[test]
fn comments_literals_and_doc_tests_are_skipped() {
    let source = r####"
//! use crate::fetch::x;
/// ```
/// use whatwg_fetch::net::ResponseBody; crate::net::y
/// ```
/* crate::client::Client /* nested crate::net */ still a comment crate::fetch */
fn f<'a>(x: &'a str) -> &'static str {
    let s = "crate::net::z \" crate::fetch";
    let q = '"';
    let e = '\'';
    let b = b"crate::net";
    let c = b'"';
    let r = r#"crate::fetch " crate::net"#;
    let br = br##"crate::client"##;
    let r#type = 1;
    x
}
use crate::net::Transport;
"####;
    let found = violations("response.rs", source);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("18: ") && found[0].contains("crate::net::Transport"),
        "{found:?}"
    );
}

#[test]
fn the_crate_roots_re_exports_are_followed() {
    let found = violations(
        "cookie.rs",
        "fn f(b: crate::ClientBuilder) {}\nfn g() { crate::Environment::server(); }\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("crate::ClientBuilder (client)"),
        "{found:?}"
    );
    // The free function `fetch` is the client's; the module `fetch` is the algorithm.
    let found = violations(
        "fetch/mod.rs",
        "fn f() { crate::fetch(r); crate::fetch::main_fetch(); }\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("crate::fetch (client)"), "{found:?}");
}

#[test]
fn the_network_layer_imports_only_itself_error_and_infra() {
    let ok = "use crate::error::{NetworkError, TimeoutKind};\nuse crate::infra::forgiving_base64_encode;\nuse super::body::RequestBody;\n";
    assert_eq!(violations("net/proxy.rs", ok), Vec::<String>::new());
    let found = violations(
        "net/mod.rs",
        "use crate::headers::HeaderList;\nfn f(_: crate::fetch::FetchParams) {}\n",
    );
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn the_fetch_algorithm_may_not_import_the_client() {
    let found = violations(
        "fetch/mod.rs",
        "const MAX: u64 = crate::client::DEFAULT_MAX_BUFFERED_BODY_SIZE;\nuse crate::net::Transport;\nuse crate::request::Request;\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("crate::client::DEFAULT_MAX_BUFFERED_BODY_SIZE (client)"),
        "{found:?}"
    );
}

#[test]
fn infra_imports_nothing_of_the_crate() {
    assert_eq!(
        violations("infra.rs", "use super::*;\nfn f() {}\n").len(),
        1
    );
    assert_eq!(
        violations("infra.rs", "use crate::error::Error;\n").len(),
        1
    );
    assert_eq!(
        violations("error.rs", "use crate::infra::x;\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        violations("error.rs", "use crate::mime::MimeType;\n").len(),
        1
    );
}

#[test]
fn only_the_network_layer_names_the_network_crates() {
    let found = violations(
        "body.rs",
        "fn f(_: hyper::body::Incoming) {}\nuse rustls::ClientConfig;\n",
    );
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("the hyper crate (network layer)"),
        "{found:?}"
    );
    assert_eq!(
        violations(
            "net/body.rs",
            "fn f(_: hyper::body::Incoming, h2: h2::Reason) {}\n"
        ),
        Vec::<String>::new()
    );
    // A field or a variable of that name is no crate.
    assert_eq!(
        violations(
            "client.rs",
            "fn f(self) { self.hyper = self.hyper.build(); x.h2::<T>(); }\n"
        ),
        Vec::<String>::new()
    );
}

#[test]
fn interop_may_use_the_network_layer_but_not_the_algorithm() {
    assert_eq!(
        violations(
            "interop.rs",
            "use crate::net::status_text;\nuse crate::response::Response;\n"
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        violations("interop.rs", "use crate::fetch::fetch;\n").len(),
        1
    );
    assert_eq!(
        violations("interop.rs", "use crate::client::Client;\n").len(),
        1
    );
}

#[test]
fn a_module_in_no_layer_is_reported() {
    let found = violations("webtransport.rs", "pub struct WebTransport;\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`webtransport` is in no layer"),
        "{found:?}"
    );
    let found = violations("body.rs", "use crate::webtransport::WebTransport;\n");
    assert_eq!(found.len(), 1, "{found:?}");
}

// ----------------------------------------------------------------------------------------
// ARCHITECTURE.md, held to the code
// ----------------------------------------------------------------------------------------

/// The layer a row of ARCHITECTURE.md's table of layers names, by its first cell.
fn layer_of_label(label: &str) -> Option<Layer> {
    Some(match label {
        "Infra" => Layer::Infra,
        "Errors" => Layer::Error,
        "Spec types" => Layer::Spec,
        "Network" => Layer::Net,
        "Fetch" => Layer::Fetch,
        "Interop" => Layer::Interop,
        "Client" => Layer::Client,
        "Crate root" => Layer::Root,
        _ => return None,
    })
}

/// The rows of the Markdown table whose header row is `header`, as their cells, trimmed;
/// the separator row left out. Empty when no such table is found.
fn table_rows(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|line| line.trim() != header);
    if lines.next().is_none() {
        return Vec::new();
    }
    lines
        .take_while(|line| line.starts_with('|'))
        .filter(|line| !line.starts_with("| ---"))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The names in backticks in `cell`: `` `net/`, `mock` `` gives `net/` and `mock`.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// Where ARCHITECTURE.md's table of layers and `MODULES` disagree, one line each.
fn layer_table_mismatches(text: &str) -> Vec<String> {
    let rows = table_rows(text, "| Layer | Modules | May import |");
    if rows.is_empty() {
        return vec!["no table of layers (`| Layer | Modules | May import |`)".to_owned()];
    }
    let mut mismatches = Vec::new();
    let mut listed: Vec<(String, Layer)> = Vec::new();
    for row in &rows {
        let label = row.first().map(String::as_str).unwrap_or_default();
        let Some(layer) = layer_of_label(label) else {
            mismatches.push(format!("a row of layer `{label}`, which is no layer"));
            continue;
        };
        let modules = row.get(1).map(String::as_str).unwrap_or_default();
        for module in quoted(modules) {
            listed.push((module.trim_end_matches('/').to_owned(), layer));
        }
    }
    for (module, layer) in &listed {
        match layer_of_module(module) {
            None => mismatches.push(format!("`{module}` is in the table but not in MODULES")),
            Some(placed) if placed != *layer => mismatches.push(format!(
                "`{module}` is in the table's {} row, in MODULES in the {}",
                layer.name(),
                placed.name()
            )),
            Some(_) => {}
        }
    }
    for (module, layer) in MODULES {
        if !listed.iter().any(|(name, _)| name == module) {
            mismatches.push(format!(
                "`{module}` ({}) is missing from the table",
                layer.name()
            ));
        }
    }
    mismatches
}

/// Where ARCHITECTURE.md's table of the network layer's rooms and `rooms` (the files and
/// folders of `src/net/`, as `net/h1.rs` and `net/resolve/`) disagree, one line each.
fn room_table_mismatches(text: &str, rooms: &[String]) -> Vec<String> {
    let rows = table_rows(text, "| Room | What it holds |");
    if rows.is_empty() {
        return vec!["no table of rooms (`| Room | What it holds |`)".to_owned()];
    }
    let listed: Vec<&str> = rows
        .iter()
        .filter_map(|row| row.first())
        .flat_map(|cell| quoted(cell))
        .collect();
    let mut mismatches = Vec::new();
    for room in rooms {
        if !listed.contains(&room.as_str()) {
            mismatches.push(format!("`{room}` is missing from the table of rooms"));
        }
    }
    for name in listed {
        if !rooms.iter().any(|room| room == name) {
            mismatches.push(format!("`{name}` is in the table of rooms but not in src/"));
        }
    }
    mismatches
}

/// The files and folders of `src/net/`, as `net/h1.rs` and `net/resolve/`.
fn net_rooms(src: &Path) -> Vec<String> {
    let dir = src.join("net");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {dir:?}: {e}"));
    let mut rooms: Vec<String> = entries
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            if path.is_dir() {
                Some(format!("net/{name}/"))
            } else {
                name.ends_with(".rs").then(|| format!("net/{name}"))
            }
        })
        .collect();
    rooms.sort();
    rooms
}

/// The rooms of ARCHITECTURE.md's table of the network layer, in its order: from the top
/// down.
fn rooms_in_table_order(text: &str) -> Vec<String> {
    table_rows(text, "| Room | What it holds |")
        .iter()
        .filter_map(|row| row.first())
        .flat_map(|cell| quoted(cell))
        .map(str::to_owned)
        .collect()
}

/// The room of `src/net/` a file `relative` to `src/` is in: `net/h2.rs`, or
/// `net/resolve/` for `net/resolve/hickory.rs`.
fn room_of_file(relative: &str) -> Option<String> {
    let inside = relative.strip_prefix("net/")?;
    Some(match inside.split_once('/') {
        Some((folder, _)) => format!("net/{folder}/"),
        None => format!("net/{inside}"),
    })
}

/// The room of `src/net/` that `absolute` (a path from the crate root) leads to: the room
/// of a module of `net` (`net/h2.rs`, `net/resolve/`), the room an item that `net/mod.rs`
/// re-exports comes from (`mod_exports`), or `net/mod.rs` for an item of its own;
/// `rooms` are those there are.
/// `None` for a path outside `net`.
fn room_of_path(
    absolute: &[String],
    rooms: &[String],
    mod_exports: &RootExports,
) -> Option<String> {
    if absolute.first().map(String::as_str) != Some("net") {
        return None;
    }
    let Some(second) = absolute.get(1) else {
        return Some("net/mod.rs".to_owned());
    };
    let module = mod_exports.0.get(second).unwrap_or(second);
    [format!("net/{module}.rs"), format!("net/{module}/")]
        .into_iter()
        .find(|room| rooms.contains(room))
        .or_else(|| Some("net/mod.rs".to_owned()))
}

/// The imports of the network layer's files (`files`: each file relative to `src/` and
/// its text) that lead to a room listed above their own in `order` (the table's order,
/// from the top down), or to a room the table does not list, one line each. A room
/// imports only rooms below it, so no two import each other, however far round.
/// `net/mod.rs`'s `pub use` lines are the layer's front door, not imports: the reader
/// reads only paths from `crate` and `super`, which its re-exports do not start with.
fn room_order_violations(order: &[String], files: &[(String, String)]) -> Vec<String> {
    let mod_exports = files
        .iter()
        .find(|(file, _)| file == "net/mod.rs")
        .map(|(_, text)| RootExports::read(text))
        .unwrap_or_default();
    let rooms: Vec<String> = files
        .iter()
        .filter_map(|(file, _)| room_of_file(file))
        .collect();
    let mut violations = Vec::new();
    for (file, text) in files {
        let Some(from) = room_of_file(file) else {
            continue;
        };
        let Some(from_floor) = order.iter().position(|room| *room == from) else {
            violations.push(format!("src/{file}: its room `{from}` is not in the table"));
            continue;
        };
        for found in paths_in(&module_of_file(file), text) {
            let Ok(absolute) = absolute_path(&found) else {
                continue;
            };
            let Some(to) = room_of_path(&absolute, &rooms, &mod_exports) else {
                continue;
            };
            if to == from {
                continue;
            }
            let to_floor = order.iter().position(|room| *room == to);
            if to_floor.is_none_or(|floor| floor < from_floor) {
                violations.push(format!(
                    "src/{file}:{}: `{from}` imports `crate::{}` from `{to}`, which stands \
                     above it in ARCHITECTURE.md's table of rooms: a room imports only \
                     rooms below it",
                    found.path.line,
                    absolute.join("::")
                ));
            }
        }
    }
    violations
}

fn architecture_md() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
}

#[test]
fn architecture_md_places_every_module_where_this_test_does() {
    let mismatches = layer_table_mismatches(&architecture_md());
    assert!(
        mismatches.is_empty(),
        "ARCHITECTURE.md's table of layers and MODULES disagree:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn architecture_md_names_every_room_of_the_network_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rooms = net_rooms(&src);
    assert!(
        rooms.len() > 10,
        "src/net/ holds the network layer: {rooms:?}"
    );
    let mismatches = room_table_mismatches(&architecture_md(), &rooms);
    assert!(
        mismatches.is_empty(),
        "ARCHITECTURE.md's table of the network layer's rooms and src/net/ disagree:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn a_table_of_layers_that_lacks_or_misplaces_a_module_is_reported() {
    let text = "| Layer | Modules | May import |\n| --- | --- | --- |\n\
                | Infra | `infra`, `peer`, `upgrade`, `net/` | nothing |\n\
                | Gadgets | `gadget` | all |\n\nafter the table\n| Infra | `error` |\n";
    let found = layer_table_mismatches(text);
    assert!(
        found.contains(
            &"`net` is in the table's infra row, in MODULES in the network layer".to_owned()
        ),
        "{found:?}"
    );
    assert!(
        found.contains(&"a row of layer `Gadgets`, which is no layer".to_owned()),
        "{found:?}"
    );
    // A row after the table is no part of it.
    assert!(
        found.contains(&"`error` (error) is missing from the table".to_owned()),
        "{found:?}"
    );
    assert!(
        found.contains(&"`cache` (client) is missing from the table".to_owned()),
        "{found:?}"
    );
    assert_eq!(layer_table_mismatches("no table here").len(), 1);
}

#[test]
fn a_table_of_rooms_that_lacks_a_file_or_names_a_gone_one_is_reported() {
    let rooms = [
        "net/h1.rs".to_owned(),
        "net/h2.rs".to_owned(),
        "net/resolve/".to_owned(),
    ];
    let text = "| Room | What it holds |\n| --- | --- |\n| `net/h1.rs` | HTTP/1.1 |\n\
                | `net/hyper_transport.rs` | gone |\n| `net/resolve/` | names |\n";
    assert_eq!(
        room_table_mismatches(text, &rooms),
        [
            "`net/h2.rs` is missing from the table of rooms",
            "`net/hyper_transport.rs` is in the table of rooms but not in src/",
        ]
    );
}

#[test]
fn a_room_of_the_network_layer_imports_only_rooms_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src.join("net"), &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|path| {
            let relative = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"));
            (relative, text)
        })
        .collect();
    assert!(files.len() > 10, "src/net/ holds the network layer");
    let order = rooms_in_table_order(&architecture_md());
    let violations = room_order_violations(&order, &files);
    assert!(
        violations.is_empty(),
        "the network layer's rooms import upwards (or in a circle):\n{}",
        violations.join("\n")
    );
}

#[test]
fn a_room_that_imports_one_above_it_is_reported_and_a_circle_with_it() {
    let order: Vec<String> = ["net/mod.rs", "net/transport.rs", "net/pool.rs", "net/h1.rs"]
        .map(str::to_owned)
        .to_vec();
    let files = |h1: &str| {
        vec![
            (
                "net/mod.rs".to_owned(),
                "mod h1;\npub use h1::Http1;\npub trait Transport {}\n".to_owned(),
            ),
            (
                "net/transport.rs".to_owned(),
                "use super::pool::Pool;\nuse super::Transport;\n".to_owned(),
            ),
            (
                "net/pool.rs".to_owned(),
                "use super::h1::Http1;\n".to_owned(),
            ),
            ("net/h1.rs".to_owned(), h1.to_owned()),
        ]
    };
    // Downwards only: nothing to report (transport -> mod.rs's own trait is reported,
    // as mod.rs stands above it here).
    let found = room_order_violations(&order, &files("use crate::error::NetworkError;\n"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`net/transport.rs` imports `crate::net::Transport` from `net/mod.rs`")
    );
    // h1 -> pool closes the circle pool -> h1: reported at the import that runs up, also
    // when it goes through mod.rs's re-export or a test module.
    let found = room_order_violations(
        &order,
        &files(
            "use super::pool::Counted;\nmod tests { use super::super::Http1; use crate::net::Transport; }\n",
        ),
    );
    assert!(
        found.iter().any(|v| v.starts_with(
            "src/net/h1.rs:1: `net/h1.rs` imports `crate::net::pool::Counted` from `net/pool.rs`"
        )),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|v| v.contains("`net/h1.rs` imports `crate::net::Transport` from `net/mod.rs`")),
        "{found:?}"
    );
    // A file of a room the table lacks.
    let mut unlisted = files("");
    unlisted.push(("net/h3/mod.rs".to_owned(), String::new()));
    let found = room_order_violations(&order, &unlisted);
    assert!(
        found
            .iter()
            .any(|v| v == "src/net/h3/mod.rs: its room `net/h3/` is not in the table"),
        "{found:?}"
    );
}
