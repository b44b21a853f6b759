//! Which runtime an app is ready for: the CRuby tree under Puma's forked workers, the JVM tree (one
//! JRuby process, real threads), the CRuby tree on TruffleRuby (one process, real threads), the Spinel
//! binary. What decides it is rarely the compiler: it is the app's deployment shape (Puma's workers,
//! the processes its Procfile starts), its gems (C extensions, JVM builds, thread-safety declarations,
//! the lockfile's platforms) and code that assumes one runtime (`fork`, `ObjectSpace`).
//!
//! `readiness` judges an app once, from its files' facts (`rails::deploy` reads them); every view is
//! of that one list: `switchyard lanes` (the table and JSON lines), `--check` and the editor (each
//! finding as a diagnostic of its file, under its `lanes.*` rule; a rule's lanes are the catalogue's),
//! and the hover on a gem line (`gem_hover`).

pub mod gems;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::AppContext;
use crate::catalogue;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::rails::FileFacts;
use crate::rails::deploy::{DeclaredGem, DeployFile, Gemfile, Lockfile, RuntimeCall, StartCommand, WorkerCount, Workers};
use crate::rails::project::FileKind;
use crate::roundhouse::tree::Lane;
use crate::syntax::Span;

pub const FORKED_WORKERS: RuleId = rule!("lanes.forked-workers");
pub const FORKING_PROCESS: RuleId = rule!("lanes.forking-process");
pub const FORK_CALL: RuleId = rule!("lanes.fork-call");
pub const FORKED_STATE: RuleId = rule!("lanes.forked-state");
pub const NO_JVM_BUILD: RuleId = rule!("lanes.no-jvm-build");
pub const LOCKFILE_WITHOUT_JAVA: RuleId = rule!("lanes.lockfile-without-java");
pub const CEXT_LOCK: RuleId = rule!("lanes.cext-lock");
pub const PLATFORM_ONLY_LOCKFILE: RuleId = rule!("lanes.platform-only-lockfile");
pub const PARALLEL_TEST_PROCESSES: RuleId = rule!("lanes.parallel-test-processes");
pub const OBJECT_SPACE: RuleId = rule!("lanes.object-space");
pub const SHARED_STATE: RuleId = rule!("lanes.shared-state");

/// One blocker or cost of one or more lanes (its rule's), at its place.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneFinding {
    pub path: PathBuf,
    pub relative_path: String,
    /// The hash of the text the finding was placed in (`FileFacts::text_hash`).
    pub text_hash: u64,
    pub diagnostic: Diagnostic,
}

impl LaneFinding {
    /// The lanes it is about: its rule's.
    pub fn lanes(&self) -> &'static [Lane] {
        catalogue::rule(&self.diagnostic.rule).map_or(&[], |r| r.lanes)
    }
}

/// Every lane finding of one app, in file and position order.
#[derive(Debug, Default)]
pub struct Readiness {
    pub findings: Vec<LaneFinding>,
}

impl Readiness {
    /// The findings in `file`, as its diagnostics: placed by the context's copy of it, so only while
    /// that copy is the same text.
    pub fn diagnostics_of<'a>(&'a self, file: &'a FileFacts) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        self.findings.iter().filter(move |f| f.path == file.path && f.text_hash == file.text_hash).map(|f| &f.diagnostic)
    }

    pub fn in_lane(&self, lane: Lane) -> impl Iterator<Item = &LaneFinding> {
        self.findings.iter().filter(move |f| f.lanes().contains(&lane))
    }
}

/// The deployment files of an app, as the judgement reads them.
struct Deployment<'a> {
    lockfile: Option<(&'a Arc<FileFacts>, &'a Lockfile)>,
    gemfile: Option<(&'a Arc<FileFacts>, &'a Gemfile)>,
    pumas: Vec<(&'a Arc<FileFacts>, &'a crate::rails::deploy::PumaConfig)>,
    commands: Vec<(&'a Arc<FileFacts>, &'a StartCommand)>,
}

impl<'a> Deployment<'a> {
    fn of(files: &'a [Arc<FileFacts>]) -> Deployment<'a> {
        let mut deployment = Deployment { lockfile: None, gemfile: None, pumas: Vec::new(), commands: Vec::new() };
        for file in files {
            match file.deploy.as_deref() {
                Some(DeployFile::Lockfile(lockfile)) => deployment.lockfile = Some((file, lockfile)),
                Some(DeployFile::Gemfile(gemfile)) => deployment.gemfile = Some((file, gemfile)),
                Some(DeployFile::Puma(puma)) => deployment.pumas.push((file, puma)),
                Some(DeployFile::Commands(commands)) => deployment.commands.extend(commands.commands.iter().map(|c| (file, c))),
                None => {}
            }
        }
        deployment
    }

    /// Whether the app's bundle has the gem `name`, and at which version (`""` when only the Gemfile
    /// names it); `Some("")` too when the app has neither a lockfile nor a Gemfile to ask.
    fn bundled(&self, name: &str) -> Option<&'a str> {
        if let Some((_, lockfile)) = self.lockfile {
            return lockfile.gems.iter().find(|g| g.name == name).map(|g| g.version.as_str());
        }
        match self.gemfile {
            Some((_, gemfile)) => gemfile.gems.iter().any(|g| g.name == name).then_some(""),
            None => Some(""),
        }
    }

    /// The Gemfile's declaration of `name`.
    fn declared(&self, name: &str) -> Option<(&'a Arc<FileFacts>, &'a DeclaredGem)> {
        let (file, gemfile) = self.gemfile?;
        gemfile.gems.iter().find(|g| g.name == name).map(|g| (file, g))
    }
}

/// Judges an app's lanes from its files' facts.
pub fn readiness(context: &AppContext) -> Readiness {
    let deployment = Deployment::of(&context.files);
    let mut findings = Vec::new();
    let mut push = |file: &Arc<FileFacts>, rule: RuleId, severity: Severity, span: Span, message: String| {
        findings.push(LaneFinding {
            path: file.path.clone(),
            relative_path: file.relative_path.clone(),
            text_hash: file.text_hash,
            diagnostic: Diagnostic { span, severity, rule, message },
        });
    };
    let broadcast = live_broadcast(&context.files);
    for (file, puma) in &deployment.pumas {
        for workers in &puma.workers {
            if let Some((severity, message)) = forked_workers(workers) {
                push(file, FORKED_WORKERS, severity, workers.span, message);
            }
            if let (true, Some((at, call))) = (workers.forks_by_default(), &broadcast) {
                push(file, FORKED_STATE, Severity::Warning, workers.span, forked_state(&workers.text, at, call));
            }
        }
        if let (Some(plugin), false, Some(version)) = (&puma.solid_queue_plugin, puma.solid_queue_async, deployment.bundled("solid_queue"))
        {
            let when = plugin.condition.as_deref().map(|c| format!(" (loaded `{c}`)")).unwrap_or_default();
            let way_out = solid_queue_async("add `solid_queue_mode :async` to run them as threads in Puma's process there", version);
            let message = format!(
                "Puma's Solid Queue plugin{when} forks Solid Queue's supervisor out of Puma, and the supervisor forks its workers: JRuby and TruffleRuby cannot fork. {way_out}"
            );
            push(file, FORKING_PROCESS, Severity::Warning, plugin.span, message);
        }
    }
    // Rails itself under forked workers: a cache store each worker keeps to itself.
    let forks =
        deployment.pumas.iter().flat_map(|(file, puma)| puma.workers.iter().map(move |w| (file, w))).find(|(_, w)| w.forks_by_default());
    if let Some((puma_file, workers)) = forks {
        for file in context.files.iter().filter(|f| f.relative_path == "config/environments/production.rb") {
            let stores = file.config.iter().flat_map(|c| &c.assignments).filter(|a| a.key == "cache_store");
            for assignment in stores {
                let memory = match &assignment.value {
                    crate::syntax::value::Value::Symbol(store) => store == "memory_store",
                    crate::syntax::value::Value::Array(items) => {
                        matches!(items.first(), Some(crate::syntax::value::Value::Symbol(store)) if store == "memory_store")
                    }
                    // `:memory_store, { size: 64.megabytes }`: a store with its options.
                    crate::syntax::value::Value::Code(source) => {
                        source.strip_prefix(":memory_store").is_some_and(|rest| rest.is_empty() || rest.trim_start().starts_with(','))
                    }
                    _ => false,
                };
                if memory {
                    let message = format!(
                        "`:memory_store` is kept in each Puma worker, and `{}` ({}:{}) forks workers: an entry one worker writes or deletes is not seen by the others, so they serve stale or different data. Use a store the workers share (`:solid_cache_store`, `:redis_cache_store`, `:mem_cache_store`, or `:file_store` on one host), or run one process with threads.",
                        shown(&workers.text),
                        puma_file.relative_path,
                        workers.span.start.line + 1
                    );
                    push(file, FORKED_STATE, Severity::Warning, assignment.span, message);
                }
            }
        }
    }
    for (file, command) in &deployment.commands {
        for (rule, severity, message) in command_findings(command, broadcast.as_ref(), &deployment) {
            push(file, rule, severity, command.span, message);
        }
    }
    // The Rails the lockfile resolves (what `parallelize` does depends on it).
    let rails_version = deployment
        .lockfile
        .and_then(|(_, l)| l.variants("activesupport").next().or_else(|| l.variants("rails").next()))
        .map(|g| g.version.as_str());
    for file in &context.files {
        for used in &file.runtime_uses {
            if let Some((rule, severity, message)) = runtime_use(&used.what, file, rails_version) {
                push(file, rule, severity, used.span, message);
            }
        }
    }
    match (deployment.lockfile, deployment.gemfile) {
        (Some((lock_file, lockfile)), _) => gem_findings(&deployment, lock_file, lockfile, &mut push),
        // No lockfile yet: the Gemfile's own gems, at no known version.
        (None, Some((gemfile_file, gemfile))) => gem_findings(&deployment, gemfile_file, &unlocked(gemfile), &mut push),
        (None, None) => {}
    }
    findings.sort_by(|a, b| {
        (&a.relative_path, a.diagnostic.span.start_byte, a.diagnostic.rule).cmp(&(
            &b.relative_path,
            b.diagnostic.span.start_byte,
            b.diagnostic.rule,
        ))
    });
    Readiness { findings }
}

/// Where the app broadcasts live updates that the CRuby tree delivers over its own Action Cable
/// endpoint: `broadcasts_to` in a model, `broadcast_<action>_to` in a model or a concern of the model
/// folder (the calls Roundhouse lowers to its in-process registry).
fn live_broadcast(files: &[Arc<FileFacts>]) -> Option<(String, String)> {
    files.iter().filter(|f| f.relative_path.starts_with("app/models/")).find_map(|f| {
        f.runtime_uses.iter().find_map(|u| match &u.what {
            RuntimeCall::Broadcast { call } => Some((format!("{}:{}", f.relative_path, u.span.start.line + 1), call.clone())),
            _ => None,
        })
    })
}

/// `workers` in Puma's configuration, on the lanes that cannot fork.
fn forked_workers(workers: &Workers) -> Option<(Severity, String)> {
    if workers.guarded || !workers.forks_by_default() {
        return None;
    }
    const THERE: &str = "JRuby and TruffleRuby cannot fork, so Puma stops at boot there (\"worker mode not supported\")";
    const WAY_OUT: &str = "set `workers` only `if Process.respond_to?(:fork)`";
    // `workers 4` (run `unless Rails.env.local?`): the condition it runs under, when it has one.
    let text = match &workers.condition {
        Some(condition) => format!("{}` (run `{}`)", shown(&workers.text), shown(condition)),
        None => format!("{}`", shown(&workers.text)),
    };
    Some(match &workers.count {
        WorkerCount::Literal { count } => (
            Severity::Error,
            format!(
                "`{text} runs Puma in cluster mode with {count} forked worker(s): {THERE}. Run one process with threads there: {WAY_OUT}."
            ),
        ),
        WorkerCount::Environment { variable, .. } => (
            Severity::Warning,
            format!(
                "`{text} forks Puma workers unless {variable} is 0: {THERE}. Start them with `{variable}=0` (one process with threads), or {WAY_OUT}."
            ),
        ),
        WorkerCount::Computed => {
            (Severity::Warning, format!("`{text} forks Puma workers when its count is above 0: {THERE}. Keep it at 0 there: {WAY_OUT}."))
        }
    })
}

/// Forked workers and the CRuby tree's in-process Action Cable registry.
fn forked_state(workers: &str, at: &str, call: &str) -> String {
    format!(
        "Deployed with forked workers as `{}` does, the CRuby tree Roundhouse emits keeps Action Cable's subscribers inside each worker: a live update reaches only the browsers connected to the worker that sent it (this app broadcasts: `{call}` at {at}). Deploy that tree as one process with threads (`WEB_CONCURRENCY=0`); one JVM process shares one registry across its threads.",
        shown(workers)
    )
}

/// A long line shown by its start.
fn shown(text: &str) -> String {
    let first = text.lines().next().unwrap_or("");
    if first.chars().count() > 80 { format!("{}…", first.chars().take(80).collect::<String>()) } else { first.to_owned() }
}

/// What a Procfile or Dockerfile command starts, on each lane.
fn command_findings(
    command: &StartCommand,
    broadcast: Option<&(String, String)>,
    deployment: &Deployment<'_>,
) -> Vec<(RuleId, Severity, String)> {
    let words: Vec<&str> = command.command.split_whitespace().collect();
    let program = |name: &str| words.iter().any(|w| w.rsplit('/').next() == Some(name));
    let mut out = Vec::new();
    let shown_command = shown(&command.command);
    if program("puma")
        && let Some(count) = puma_workers_flag(&words).filter(|c| *c > 0)
    {
        out.push((
            FORKED_WORKERS,
            Severity::Error,
            format!(
                "`{shown_command}` runs Puma in cluster mode with {count} forked worker(s): JRuby and TruffleRuby cannot fork, so Puma stops at boot there (\"worker mode not supported\"). Start it without `-w` there: one process with threads."
            ),
        ));
        if let Some((at, call)) = broadcast {
            out.push((FORKED_STATE, Severity::Warning, forked_state(&command.command, at, call)));
        }
    }
    if program("resque-pool") {
        out.push((
            FORKING_PROCESS,
            Severity::Warning,
            "`resque-pool` forks a pool of Resque worker processes: JRuby and TruffleRuby cannot fork. There, start Resque workers as processes of their own (`rake resque:work`: where Ruby cannot fork, a Resque worker performs each job in its own process instead of a forked child)."
                .to_owned(),
        ));
    }
    if program("unicorn") || program("unicorn_rails") {
        out.push((
            FORKING_PROCESS,
            Severity::Warning,
            "Unicorn is a forking server (and a C extension with no JVM build): it does not run on JRuby or TruffleRuby. Serve with Puma there, one process with threads."
                .to_owned(),
        ));
    }
    let async_mode = command.command.contains("async");
    let solid_queue = deployment.bundled("solid_queue");
    if (words.iter().any(|w| w.ends_with("solid_queue:start")) || program("jobs") && words.iter().any(|w| w.ends_with("bin/jobs")))
        && !async_mode
        && let Some(version) = solid_queue
    {
        let way_out = solid_queue_async(
            "run it in async mode there (`bin/jobs --mode async` or `SOLID_QUEUE_SUPERVISOR_MODE=async`): threads in one process",
            version,
        );
        out.push((
            FORKING_PROCESS,
            Severity::Warning,
            format!("Solid Queue's supervisor forks its workers and dispatchers by default: JRuby and TruffleRuby cannot fork. {way_out}"),
        ));
    }
    if program("delayed_job") && words.iter().any(|w| matches!(*w, "start" | "restart")) {
        out.push((
            FORKING_PROCESS,
            Severity::Warning,
            "`delayed_job start` daemonizes its workers with fork (the daemons gem): JRuby and TruffleRuby cannot fork. There, run `bin/delayed_job run` or `rake jobs:work` in the foreground."
                .to_owned(),
        ));
    }
    if program("good_job") && words.iter().any(|w| matches!(*w, "--daemonize" | "-d")) {
        out.push((
            FORKING_PROCESS,
            Severity::Warning,
            "`good_job start --daemonize` detaches with `Process.daemon`, which JRuby does not have and TruffleRuby cannot do (it forks). There, run `good_job start` in the foreground."
                .to_owned(),
        ));
    }
    out
}

/// The way out through Solid Queue's async mode, which versions before 1.3.0 do not have.
fn solid_queue_async(way_out: &str, version: &str) -> String {
    if !version.is_empty() && gems::older(version, "1.3.0") {
        format!(
            "Solid Queue 1.3.0 and later have an async mode (threads in one process); this app's {version} has none: upgrade it, then {way_out}."
        )
    } else {
        let mut sentence = way_out.to_owned();
        if let Some(first) = sentence.get(..1) {
            sentence.replace_range(..1, &first.to_uppercase());
        }
        format!("{sentence}.")
    }
}

/// `-w 3`, `--workers 3`, `--workers=3`, `-w3`.
fn puma_workers_flag(words: &[&str]) -> Option<i64> {
    for (i, word) in words.iter().enumerate() {
        let value = match *word {
            "-w" | "--workers" => words.get(i + 1).copied(),
            _ => word.strip_prefix("--workers=").or_else(|| word.strip_prefix("-w").filter(|v| !v.is_empty())),
        };
        if let Some(count) = value.and_then(|v| v.parse::<i64>().ok()) {
            return Some(count);
        }
    }
    None
}

/// A call in the app's Ruby that assumes one runtime.
fn runtime_use(call: &RuntimeCall, file: &FileFacts, rails_version: Option<&str>) -> Option<(RuleId, Severity, String)> {
    match call {
        RuntimeCall::Fork { call } => Some((
            FORK_CALL,
            Severity::Warning,
            if call == "Process.daemon" {
                "`Process.daemon` detaches by forking: JRuby has no `Process.daemon` and TruffleRuby cannot fork. Run the process in the foreground under a supervisor there.".to_owned()
            } else {
                format!(
                    "`{call}` forks the process: JRuby and TruffleRuby cannot fork (it raises NotImplementedError there). Use a thread or a separate process started by the supervisor, or check `Process.respond_to?(:fork)` first."
                )
            },
        )),
        RuntimeCall::EachObject { argument } => {
            let argument = argument.as_deref().unwrap_or("");
            let allowed = matches!(argument, "Class" | "Module" | "::Class" | "::Module") || argument.ends_with(".singleton_class");
            (!allowed).then(|| {
                let of = if argument.is_empty() { "every object".to_owned() } else { format!("`{argument}`") };
                (
                    OBJECT_SPACE,
                    Severity::Warning,
                    format!(
                        "`ObjectSpace.each_object` over {of}: JRuby disables ObjectSpace by default and raises here (only `Class` and `Module` work); `-X+O` turns it on at a cost to every allocation. Keep a registry of the objects you need instead."
                    ),
                )
            })
        }
        RuntimeCall::Chdir => Some((
            SHARED_STATE,
            Severity::Info,
            "`Dir.chdir` changes the working folder of the whole process: where it runs among real threads (a server on JRuby or TruffleRuby), every other thread's relative paths move with it. Pass absolute paths (or `chdir:` to a subprocess) instead.".to_owned(),
        )),
        RuntimeCall::ClassStateWrite { ivar, method, memoised, owner } => {
            let who = owner.as_ref().map_or_else(|| format!("`{method}`"), |o| format!("`{o}.{}`", method.trim_start_matches("self.")));
            let what = if *memoised {
                format!(
                    "memoises `{ivar}` with `||=` on the class or module itself (not on an instance): on JRuby and TruffleRuby two threads can both compute it and one result is dropped"
                )
            } else {
                format!("writes `{ivar}` on the class or module itself (not on an instance): on JRuby and TruffleRuby every thread shares it, with no lock")
            };
            Some((
                SHARED_STATE,
                Severity::Info,
                format!(
                    "{who} {what}. Harmless when the value is the same for every caller and never changed in place; otherwise guard it with a Mutex or compute it at boot."
                ),
            ))
        }
        RuntimeCall::Parallelize { with, workers } => parallelize(with.as_deref(), workers.as_deref(), file, rails_version),
        RuntimeCall::Broadcast { .. } => None,
    }
}

/// `parallelize` in a test helper, on the lanes that cannot fork. Rails 7.0 and later fork only for a
/// suite above the parallelization threshold; 6.x forks for every run with more than one worker.
fn parallelize(
    with: Option<&str>,
    workers: Option<&str>,
    file: &FileFacts,
    rails_version: Option<&str>,
) -> Option<(RuleId, Severity, String)> {
    let threads = with.is_some_and(|w| w.contains("threads"));
    // `workers: 1` runs the tests in the process itself: nothing forks.
    if workers.and_then(|w| w.trim().parse::<i64>().ok()).is_some_and(|n| n <= 1) {
        return None;
    }
    let when = match rails_version {
        Some(version) if gems::older(version, "7.0") => format!("Rails {version} forks for every run with more than one worker"),
        Some(_) => "a suite above the parallelization threshold (50 tests by default) forks".to_owned(),
        None => {
            "a suite above the parallelization threshold (Rails 7.0 and later: 50 tests by default; before, every run) forks".to_owned()
        }
    };
    (!threads && file.kind == Some(FileKind::Test)).then(|| {
            (
                PARALLEL_TEST_PROCESSES,
                Severity::Warning,
                format!(
                    "`parallelize` forks test processes (Rails' default `with: :processes`), and Rails does not fall back where Ruby cannot fork: on JRuby and TruffleRuby, where {when}, the suite stops at the fork. Add `with: :threads` when `!Process.respond_to?(:fork)`, as Rails generates on those runtimes."
                ),
            )
        })
}

/// The lockfile's gems on the JVM and on TruffleRuby.
fn gem_findings(
    deployment: &Deployment<'_>,
    lock_file: &Arc<FileFacts>,
    lockfile: &Lockfile,
    push: &mut impl FnMut(&Arc<FileFacts>, RuleId, Severity, Span, String),
) {
    let on_jruby = installed(deployment, lockfile, "jruby", false);
    let on_truffle = installed(deployment, lockfile, "truffleruby", false);
    // What a production install needs (without the development and test groups).
    let in_production = installed(deployment, lockfile, "truffleruby", true);
    // Where a gem's finding goes: its Gemfile line when the app names it, else its lockfile spec.
    // A gem the Gemfile keeps off a runtime but another gem still needs there is placed at its spec.
    let place = |name: &str, engine: &str| -> Option<(&Arc<FileFacts>, Span)> {
        match deployment.declared(name) {
            Some((file, declared)) if declared.installed_on(engine) => Some((file, declared.span)),
            _ => lockfile.variants(name).next().map(|g| (lock_file, g.span)),
        }
    };
    let names: BTreeSet<&str> = lockfile.gems.iter().map(|g| g.name.as_str()).collect();
    for name in &names {
        let Some(fact) = gems::fact(name) else { continue };
        let version = lockfile.variants(name).next().map(|g| g.version.as_str()).unwrap_or("");
        let through = needed_through(lockfile, name);
        // Only the gems the Gemfile names: what a gem needs on JRuby is its JVM variant's to say
        // (`unf`'s JVM build needs no `unf_ext`), which a lockfile without `java` does not hold.
        let direct = lockfile.dependencies.iter().any(|d| d == name);
        if direct
            && on_jruby.contains(*name)
            && fact.native
            && fact.jvm == gems::Jvm::None
            && !lockfile.variants(name).any(|g| g.platform.as_deref().is_some_and(|p| p.contains("java")))
            && let Some((file, span)) = place(name, "jruby")
        {
            const OWN_BUNDLE: &str =
                "This app's own bundle does not install there (the JVM tree Roundhouse emits has a Gemfile of its own)";
            let (severity, way_out) = match (*name, fact.jvm_alternative.as_deref()) {
                ("sqlite3", alternative) => (
                    Severity::Info,
                    format!(
                        "The JVM tree Roundhouse emits swaps it for jdbc-sqlite3 on its own; to run this app itself on JRuby, use {} under `platforms :jruby`.",
                        alternative.unwrap_or("activerecord-jdbcsqlite3-adapter")
                    ),
                ),
                _ if !in_production.contains(*name) => (
                    Severity::Info,
                    format!(
                        "It is in the development and test groups only: leave them out of a JRuby install (`BUNDLE_WITHOUT=development:test`), or keep `{name}` to `platforms :ruby`."
                    ),
                ),
                (_, Some(alternative)) => (
                    Severity::Warning,
                    format!("{OWN_BUNDLE}: use {alternative} on JRuby (under `platforms :jruby`), and keep `{name}` to `platforms :ruby`."),
                ),
                (_, None) => (
                    Severity::Warning,
                    format!("{OWN_BUNDLE}: keep `{name}` to `platforms :ruby` and find a JVM equivalent for what the app uses it for."),
                ),
            };
            // The Gemfile keeps it off JRuby, and another gem still needs it there.
            let restricted = deployment.declared(name).is_some_and(|(_, d)| !d.installed_on("jruby"));
            let through = if restricted {
                let by = needed_by(lockfile, name);
                format!(" (the Gemfile keeps it off JRuby, but {} {} it there)", listed(&by), if by.len() == 1 { "needs" } else { "need" })
            } else {
                String::new()
            };
            let message = format!(
                "`{name}`{}{through} builds a C extension and has no JVM build: JRuby cannot install or load it. {way_out}",
                at_version(version)
            );
            push(file, NO_JVM_BUILD, severity, span, message);
        }
        if in_production.contains(*name)
            && fact.native
            && SERVES_REQUESTS.contains(name)
            && !fact.declares_thread_safe_at(version)
            && let Some((file, span)) = place(name, "truffleruby")
        {
            let message = format!(
                "`{name}`{}{through} builds a C extension that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock, so threads serving requests take turns in every call (Campfire's room page: 2.5× slower locked than unlocked under load; single-threaded the lock costs about 3%, so a benchmark hides it). `--experimental-options --cexts-lock=false` lifts the lock for every extension at once: only when each one is safe to run concurrently.",
                at_version(version)
            );
            push(file, CEXT_LOCK, Severity::Warning, span, message);
        }
    }
    let Some(header) = lockfile.platforms_header else { return };
    if !lockfile.lists_platform("ruby") {
        let platform_only: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| on_truffle.contains(*name) && !gems::TRUFFLERUBY_KEEPS_PRECOMPILED.contains(name))
            .filter(|name| lockfile.variants(name).all(|g| g.platform.is_some()))
            .collect();
        if !platform_only.is_empty() {
            let message = format!(
                "PLATFORMS lists no `ruby`, and {} {} only to precompiled platform variants. TruffleRuby's Bundler installs only source (`ruby`) variants, so it re-resolves this lockfile and rewrites it in place; the other runtime's next `bundle exec` then re-resolves again (Campfire's died with \"You have already activated openssl\"). Run `bundle lock --add-platform ruby`, or give TruffleRuby a lockfile of its own.",
                listed(&platform_only),
                if platform_only.len() == 1 { "resolves" } else { "resolve" }
            );
            push(lock_file, PLATFORM_ONLY_LOCKFILE, Severity::Warning, header, message);
        }
    }
    if !lockfile.platforms.iter().any(|p| p.name == "java" || p.name.starts_with("universal-java")) {
        let with_java: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| on_jruby.contains(*name) && gems::fact(name).is_some_and(|f| f.jvm == gems::Jvm::Java))
            .collect();
        if !with_java.is_empty() {
            // With `ruby` listed, a frozen install goes on (and builds the source variants); without
            // it, Bundler stops: the lockfile supports no platform of the running Ruby.
            let frozen = if lockfile.lists_platform("ruby") {
                "to pick them, rewriting it in place"
            } else {
                "to pick them, rewriting it in place (in frozen or deployment mode it stops instead)"
            };
            let message = format!(
                "PLATFORMS lists no `java`, and {} {} separate JVM builds: JRuby's Bundler re-resolves this lockfile {frozen}. Run `bundle lock --add-platform java`.",
                listed(&with_java),
                if with_java.len() == 1 { "ships" } else { "ship" }
            );
            push(lock_file, LOCKFILE_WITHOUT_JAVA, Severity::Warning, header, message);
        }
    }
}

/// What a lockfile would say of a Gemfile's own gems before `bundle install`: each named, at no
/// version, needing nothing, with no platforms.
fn unlocked(gemfile: &Gemfile) -> Lockfile {
    Lockfile {
        gems: gemfile
            .gems
            .iter()
            .map(|g| crate::rails::deploy::LockedGem {
                name: g.name.clone(),
                version: String::new(),
                platform: None,
                span: g.span,
                needed_by: Vec::new(),
            })
            .collect(),
        platforms: Vec::new(),
        platforms_header: None,
        dependencies: gemfile.gems.iter().map(|g| g.name.clone()).collect(),
    }
}

/// The C extensions that run on every request: database drivers, the server, the WebSocket I/O. A
/// lock on any other extension (a parser run at boot) costs little.
const SERVES_REQUESTS: &[&str] = &["sqlite3", "pg", "mysql2", "trilogy", "puma", "nio4r", "websocket-driver"];

/// `` or ` (needed by rails, …)`.
fn needed_through(lockfile: &Lockfile, name: &str) -> String {
    if lockfile.dependencies.iter().any(|d| d == name) {
        return String::new();
    }
    let by = needed_by(lockfile, name);
    if by.is_empty() { String::new() } else { format!(" (needed by {})", listed(&by)) }
}

/// The gems whose specs need `name`, each once, in order.
fn needed_by<'a>(lockfile: &'a Lockfile, name: &'a str) -> Vec<&'a str> {
    lockfile.variants(name).flat_map(|g| g.needed_by.iter().map(String::as_str)).collect::<BTreeSet<_>>().into_iter().collect()
}

/// ` 2.9.6`, or nothing for a gem no lockfile has resolved yet.
fn at_version(version: &str) -> String {
    if version.is_empty() { String::new() } else { format!(" {version}") }
}

fn listed(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(6).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(6);
    if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
}

/// The gems Bundler installs on `engine`: the Gemfile's (those its platforms keep; in `production`,
/// not those of the development and test groups alone) and what they need.
fn installed<'a>(deployment: &Deployment<'_>, lockfile: &'a Lockfile, engine: &str, production: bool) -> BTreeSet<&'a str> {
    let mut needs: HashMap<&str, Vec<&str>> = HashMap::new();
    for gem in &lockfile.gems {
        for parent in &gem.needed_by {
            needs.entry(parent.as_str()).or_default().push(gem.name.as_str());
        }
    }
    let mut out = BTreeSet::new();
    let mut stack: Vec<&str> = lockfile
        .dependencies
        .iter()
        .map(String::as_str)
        .filter(|name| {
            deployment.declared(name).is_none_or(|(_, declared)| {
                declared.installed_on(engine) && !declared.optional && !(production && declared.development_only())
            })
        })
        .collect();
    // Without DEPENDENCIES (a hand-cut lockfile), every gem.
    if lockfile.dependencies.is_empty() {
        stack = lockfile.gems.iter().map(|g| g.name.as_str()).collect();
    }
    while let Some(name) = stack.pop() {
        if let Some(spec) = lockfile.gems.iter().find(|g| g.name == name)
            && out.insert(spec.name.as_str())
        {
            stack.extend(needs.get(name).into_iter().flatten().copied());
        }
    }
    out
}

/// What a gem is to each lane, for the hover on its Gemfile or lockfile line.
pub fn gem_hover(name: &str, lockfile: Option<&Lockfile>) -> Option<String> {
    let fact = gems::fact(name);
    let variants: Vec<&crate::rails::deploy::LockedGem> = lockfile.map(|l| l.variants(name).collect()).unwrap_or_default();
    if fact.is_none() && variants.is_empty() {
        return None;
    }
    let mut out = format!("**{name}**");
    if let Some(version) = variants.first().map(|g| g.version.as_str()) {
        out.push_str(&format!(" {version}"));
    }
    out.push_str("\n\n");
    let platforms: Vec<&str> = variants.iter().map(|g| g.platform.as_deref().unwrap_or("ruby")).collect();
    if !platforms.is_empty() {
        out.push_str(&format!("Locked for: {}\n\n", platforms.join(", ")));
    }
    match fact {
        Some(fact) => {
            let native = if fact.native { "builds a C extension" } else { "no C extension" };
            let jvm = if variants.iter().any(|g| g.platform.as_deref().is_some_and(|p| p.contains("java"))) {
                "a JVM build is in the lockfile".to_owned()
            } else {
                match (fact.jvm, fact.jvm_alternative.as_deref()) {
                    (gems::Jvm::Java, _) => "publishes a JVM build (`-java`)".to_owned(),
                    (gems::Jvm::Pure, _) => "loads on JRuby as plain Ruby".to_owned(),
                    (gems::Jvm::None, Some(alternative)) => format!("no JVM build: JRuby uses {alternative}"),
                    (gems::Jvm::None, None) => "no JVM build: JRuby cannot load it".to_owned(),
                }
            };
            let version = variants.first().map(|g| g.version.as_str()).unwrap_or("");
            let truffle = match (fact.native, fact.declares_thread_safe) {
                (false, _) => "no C extension, no lock".to_owned(),
                (true, Some(_)) if fact.declares_thread_safe_at(version) => {
                    "declares its extension thread-safe: runs outside the global C-extension lock (TruffleRuby 25.0+)".to_owned()
                }
                (true, Some(_)) => "declares no thread safety: runs under the global C-extension lock".to_owned(),
                (true, None) => "whether it declares thread safety is not known".to_owned(),
            };
            out.push_str(&format!("| lane | |\n|---|---|\n| ruby | {native} |\n| jruby | {jvm} |\n| truffleruby | {truffle} |\n"));
            if let Some(note) = fact.note.as_deref().filter(|n| !n.is_empty()) {
                out.push_str(&format!("\n{note}\n"));
            }
            if let Some(source) = fact.sources.first() {
                out.push_str(&format!("\nSource: {source}\n"));
            }
        }
        None => out.push_str("Switchyard's gem table does not know this gem.\n"),
    }
    Some(out)
}

#[cfg(test)]
mod tests;
