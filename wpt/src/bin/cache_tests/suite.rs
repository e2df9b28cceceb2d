//! Runs the suite's browser mode (`test-browser.html`: `runTests(tests, true)`) in QuickJS:
//! its ES modules loaded from the suite's directory, `fetch` from `whatwg-fetch-quickjs`.

use std::path::{Component, Path, PathBuf};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{AsyncContext, AsyncRuntime, CatchResultExt, Ctx, Module};
use whatwg_fetch::Client;

use crate::compare::{Results, TestInfo};

/// The entry module's name, in the suite's directory so that its imports resolve there.
const ENTRY: &str = "whatwg-fetch-cache-tests-entry.mjs";

/// What a run of the suite gives.
pub struct Run {
    /// Every test of the suite, in its order.
    pub tests: Vec<TestInfo>,
    /// The results, if the tests were run.
    pub results: Option<Results>,
}

/// What to run.
pub struct Plan<'a> {
    /// The suite's directory.
    pub suite: &'a Path,
    /// The server's base URL (`http://localhost:PORT`), or none to only list the tests.
    pub base: Option<&'a str>,
    /// Only these tests (with their requests and responses logged), or all.
    pub only: &'a [String],
}

/// The entry module: lists the tests, and runs them as the browser mode does.
pub fn entry_source(plan: &Plan<'_>) -> String {
    let base = serde_json::to_string(&plan.base).unwrap_or_else(|_| "null".into());
    let only = serde_json::to_string(plan.only).unwrap_or_else(|_| "[]".into());
    format!(
        "\
import {{ runTests, getResults }} from './test-engine/client/runner.mjs'
import suites from './tests/index.mjs'
const base = {base}
const only = {only}
const tests = []
for (const suite of suites) {{
  for (const test of suite.tests) {{
    tests.push({{
      id: test.id,
      suite: suite.id,
      name: test.name ?? '',
      kind: test.kind ?? 'required',
      depends_on: test.depends_on ?? [],
      browser_only: test.browser_only === true,
      browser_skip: test.browser_skip === true,
      cdn_only: test.cdn_only === true
    }})
  }}
}}
globalThis.cacheTestsList = JSON.stringify(tests)
if (base !== null) {{
  let selected = suites
  if (only.length > 0) {{
    selected = suites
      .map(suite => ({{ ...suite, tests: suite.tests.filter(test => only.includes(test.id)) }}))
      .filter(suite => suite.tests.length > 0)
    selected.forEach(suite => suite.tests.forEach(test => {{ test.dump = true }}))
  }}
  await runTests(selected, true, base)
  globalThis.cacheTestsResults = JSON.stringify(getResults())
}}
"
    )
}

/// Resolves `./` and `../` imports against the importing module, inside the suite.
struct SuiteResolver {
    root: PathBuf,
}

impl Resolver for SuiteResolver {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        let resolved = (name.starts_with("./") || name.starts_with("../"))
            .then(|| resolve_relative(Path::new(base), name))
            .flatten()
            .filter(|path| path.starts_with(&self.root));
        match resolved {
            Some(path) => Ok(path.to_string_lossy().into_owned()),
            // `undici` (for interim responses, in Node only) and anything outside the suite.
            None => Err(rquickjs::Error::new_resolving_message(
                base,
                name,
                "only modules of the suite are loaded",
            )),
        }
    }
}

/// `name` (`./x.mjs`, `../lib/y.mjs`) relative to the directory of the module `base`.
pub fn resolve_relative(base: &Path, name: &str) -> Option<PathBuf> {
    let mut path = base.parent()?.to_path_buf();
    for component in Path::new(name).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !path.pop() {
                    return None;
                }
            }
            Component::Normal(part) => path.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(path)
}

/// Loads a suite module from its file.
struct SuiteLoader;

impl Loader for SuiteLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        let source = std::fs::read(name)
            .map_err(|e| rquickjs::Error::new_loading_message(name, e.to_string()))?;
        Module::declare(ctx.clone(), name, source)
    }
}

/// Runs the plan in a new QuickJS runtime, fetching with `client`.
pub async fn run(plan: &Plan<'_>, client: Client) -> Result<Run, String> {
    let root =
        std::fs::canonicalize(plan.suite).map_err(|e| format!("{}: {e}", plan.suite.display()))?;
    let runtime = AsyncRuntime::new().map_err(|e| format!("QuickJS runtime: {e}"))?;
    runtime
        .set_loader(SuiteResolver { root: root.clone() }, SuiteLoader)
        .await;
    let context = AsyncContext::full(&runtime)
        .await
        .map_err(|e| format!("QuickJS context: {e}"))?;
    whatwg_fetch_quickjs::track_unhandled_rejections(&runtime).await;
    let entry_name = root.join(ENTRY).to_string_lossy().into_owned();
    let source = entry_source(plan);
    let outcome = context
        .async_with(async |ctx| {
            let run = async {
                whatwg_fetch_quickjs::install(&ctx, client)?;
                let (_, done) = Module::declare(ctx.clone(), entry_name, source)?.eval()?;
                done.into_future::<()>().await
            };
            match run.await.catch(&ctx) {
                Ok(()) => {
                    let globals = ctx.globals();
                    let tests: Option<String> = globals.get("cacheTestsList").ok();
                    let results: Option<String> = globals.get("cacheTestsResults").ok();
                    Ok((tests, results))
                }
                Err(error) => Err(format!("the suite threw: {error}")),
            }
        })
        .await;
    runtime.idle().await;
    let (tests, results) = outcome?;
    let tests = tests.ok_or("the suite listed no tests")?;
    let tests: Vec<TestInfo> =
        serde_json::from_str(&tests).map_err(|e| format!("the suite's test list: {e}"))?;
    let results = match results {
        Some(results) => {
            Some(serde_json::from_str(&results).map_err(|e| format!("the suite's results: {e}"))?)
        }
        None => None,
    };
    Ok(Run { tests, results })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_imports_resolve_against_the_importing_module() {
        let base = Path::new("/suite/test-engine/client/test.mjs");
        assert_eq!(
            resolve_relative(base, "../lib/defines.mjs"),
            Some(PathBuf::from("/suite/test-engine/lib/defines.mjs"))
        );
        assert_eq!(
            resolve_relative(base, "./config.mjs"),
            Some(PathBuf::from("/suite/test-engine/client/config.mjs"))
        );
        assert_eq!(resolve_relative(Path::new("/a.mjs"), "../../x.mjs"), None);
    }

    #[test]
    fn the_entry_module_runs_only_the_tests_asked_for() {
        let plan = Plan {
            suite: Path::new("/suite"),
            base: Some("http://localhost:8000"),
            only: &["freshness-max-age".to_owned()],
        };
        let source = entry_source(&plan);
        assert!(source.contains("const base = \"http://localhost:8000\""));
        assert!(source.contains("const only = [\"freshness-max-age\"]"));
        let list_only = entry_source(&Plan {
            base: None,
            only: &[],
            ..plan
        });
        assert!(list_only.contains("const base = null"));
    }
}
