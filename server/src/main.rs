//! The `switchyard` binary: the language server over stdio by default, `--check` for CI, and `index`
//! to dump what the index read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use switchyard::cli;
use switchyard::diagnostic::Severity;

#[derive(Parser)]
#[command(
    name = "switchyard",
    version,
    about = "Editor tooling for Rails apps compiled with Roundhouse: a language server (the default, over stdio) and a checker for CI.",
    args_conflicts_with_subcommands = true
)]
struct Args {
    /// Check the Rails app(s) at PATH and print diagnostics instead of serving LSP.
    #[arg(long)]
    check: bool,
    /// The app (or a folder holding apps) to check; defaults to the current directory.
    #[arg(requires = "check")]
    path: Option<PathBuf>,
    /// Output format for --check.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human, requires = "check")]
    format: CheckFormat,
    /// Only rules that apply to these Roundhouse targets (repeatable; default ruby and jruby).
    #[arg(long = "target", value_enum, requires = "check")]
    targets: Vec<TreeTarget>,
    /// Only `lanes.*` rules about these runtime lanes (repeatable; default: the targets' own).
    #[arg(long = "lane", value_enum, requires = "check")]
    lanes: Vec<RuntimeLane>,
    /// Only these rules (repeatable).
    #[arg(long = "rule", value_name = "RULE", requires = "check")]
    rules: Vec<String>,
    /// Apply the safe fixes (`"#@x"` → `"#{@x}"`, `alias` → `alias_method`, text `#{` escaped, unused
    /// suppressions removed) to the files, then report what is left.
    #[arg(long, requires = "check")]
    fix: bool,
    /// Also run the Roundhouse compiler on each app (once per target) and report what it says that
    /// Switchyard's own findings do not, under `roundhouse.<kind>` rules. The compiler is
    /// `--roundhouse`, else `[roundhouse]` in the app's `switchyard.toml`.
    #[arg(long, requires = "check", conflicts_with = "fix")]
    exact: bool,
    /// The Roundhouse binary `--exact` runs.
    #[arg(long, value_name = "BINARY", requires = "exact")]
    roundhouse: Option<PathBuf>,
    /// The Roundhouse checkout it runs in (it reads `runtime/` there; default: the binary's folder).
    #[arg(long, value_name = "DIR", requires = "roundhouse")]
    roundhouse_checkout: Option<PathBuf>,
    /// Exit with 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailLevel::Error, requires = "check")]
    fail_level: FailLevel,
    /// Serve LSP over stdio (the default; accepted for clients that pass it).
    #[arg(long, conflicts_with = "check")]
    stdio: bool,
    /// Neither read nor write the persisted index: parse every file.
    #[arg(long, global = true)]
    no_cache: bool,
    /// Colour in `--check`'s output: `auto` on a terminal unless NO_COLOR is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    color: ColorWhen,
    /// Where the persisted index is kept (default: `$SWITCHYARD_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/switchyard/index`, else `~/.cache/switchyard/index`, else
    /// `switchyard-<uid>/index` in the temporary folder, made private to the user).
    #[arg(long, global = true, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Index the Rails app(s) at PATH and print what was read.
    Index {
        path: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = IndexFormat::Text)]
        format: IndexFormat,
    },
    /// List every rule: id, severity, targets, and whether this version reports it.
    Rules {
        /// `markdown`: every rule's documentation in one document (docs/rules.md).
        #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
        format: RulesFormat,
    },
    /// Explain one rule: what triggers it, why, an example, the fix, and how to silence it.
    Explain { rule: String },
    /// Switchyard's preview of what Roundhouse makes of FILE, alone on stdout (pipe it to `ruby -c`);
    /// of every file of the app(s) at FOLDER with `--out DIR`, one `.rb` file each.
    Preview {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = TreeTarget::Ruby)]
        target: TreeTarget,
        /// Write each file's preview to DIR, at its path in the app plus `.rb` (FILE is then a folder).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Where each source file lands in Roundhouse's CRuby, JVM and Spinel trees (PATH may be one file).
    Tree {
        path: Option<PathBuf>,
        /// Only these targets (repeatable); all three by default.
        #[arg(long = "target", value_enum)]
        targets: Vec<TreeTarget>,
        #[arg(long, value_enum, default_value_t = RoutesFormat::Table)]
        format: RoutesFormat,
    },
    /// Print a completion script for SHELL: `switchyard completions bash > ~/.local/share/bash-completion/completions/switchyard`.
    Completions { shell: clap_complete::Shell },
    /// Which runtime each app is ready for: the CRuby tree under forked Puma workers, the JVM tree,
    /// TruffleRuby, Spinel; each blocker and cost with its file, line and way out.
    Lanes {
        path: Option<PathBuf>,
        /// Only these lanes (repeatable); all four by default.
        #[arg(long = "lane", value_enum)]
        lanes: Vec<RuntimeLane>,
        #[arg(long, value_enum, default_value_t = RoutesFormat::Table)]
        format: RoutesFormat,
    },
    /// Print the app's routes as `bin/rails routes` does, computed from config/routes.rb alone.
    Routes {
        path: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = RoutesFormat::Table)]
        format: RoutesFormat,
        /// Only routes whose name, verb, path or controller#action contain TEXT (any case).
        #[arg(long, value_name = "TEXT")]
        grep: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum TreeTarget {
    Ruby,
    Jruby,
    Spinel,
}

impl From<TreeTarget> for switchyard::roundhouse::tree::Target {
    fn from(target: TreeTarget) -> Self {
        match target {
            TreeTarget::Ruby => Self::Ruby,
            TreeTarget::Jruby => Self::Jruby,
            TreeTarget::Spinel => Self::Spinel,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RuntimeLane {
    Ruby,
    Jruby,
    Truffleruby,
    Spinel,
}

impl From<RuntimeLane> for switchyard::roundhouse::tree::Lane {
    fn from(lane: RuntimeLane) -> Self {
        match lane {
            RuntimeLane::Ruby => Self::Ruby,
            RuntimeLane::Jruby => Self::Jruby,
            RuntimeLane::Truffleruby => Self::Truffleruby,
            RuntimeLane::Spinel => Self::Spinel,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RulesFormat {
    Table,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
enum RoutesFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    Human,
    Json,
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum IndexFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum FailLevel {
    Error,
    Warning,
    Info,
}

// Reading the persisted index and building an app's context allocate millions of small strings and
// vectors: mimalloc does that faster than the system allocator (ruff ships it for the same reason).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's defaults commit its arenas up front and give freed memory back late; with transparent
/// huge pages (off: the `no_thp` feature) every first touch also zeroed 2 MiB. Together they doubled a
/// small app's peak memory and made a page fault the largest cost of a warm run. Committing on demand
/// and purging at once keeps the system allocator's memory and mimalloc's speed (BENCHMARKS.md).
fn tune_allocator() {
    // `enum mi_option_e` in mimalloc.h: the Rust bindings do not name these two.
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: mi_option_set stores an integer option; both are documented as settable at any time.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

/// tree-sitter's C core allocates through mimalloc too: a parse allocates and frees a node per token.
/// Set once, before any parser or tree exists. The grammars' external scanners keep their own
/// allocations to themselves (they allocate and free with libc), so nothing crosses the two.
fn tree_sitter_allocator() {
    let allocator = tree_sitter::Allocator {
        malloc: libmimalloc_sys::mi_malloc,
        calloc: libmimalloc_sys::mi_calloc,
        realloc: libmimalloc_sys::mi_realloc,
        free: libmimalloc_sys::mi_free,
    };
    // SAFETY: called first thing in `main`, before any tree-sitter object is made or any thread starts.
    unsafe { tree_sitter::set_allocator(Some(allocator)) };
}

fn main() -> ExitCode {
    tune_allocator();
    tree_sitter_allocator();
    // Trees are read on threads with a stack for the deepest file read (`syntax::parse::STACK_SIZE`).
    let stack = switchyard::syntax::parse::STACK_SIZE;
    let _ = rayon::ThreadPoolBuilder::new().stack_size(stack).build_global();
    match std::thread::Builder::new().name("main".into()).stack_size(stack).spawn(run) {
        Ok(work) => work.join().unwrap_or_else(|_| ExitCode::from(101)),
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "switchyard: error: cannot start a thread: {error}");
            ExitCode::from(2)
        }
    }
}

fn run() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    // The server tells the client what a user may want to know (`window/logMessage`); stderr, which
    // editors file as errors, gets what went wrong.
    let default_level = "warn";
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SWITCHYARD_LOG").unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_env_filter(filter).init();

    match args.color {
        ColorWhen::Auto => {}
        ColorWhen::Always => anstream::ColorChoice::Always.write_global(),
        ColorWhen::Never => anstream::ColorChoice::Never.write_global(),
    }
    switchyard::index::cache::configure(args.no_cache, args.cache_dir.map(|d| std::path::absolute(&d).unwrap_or(d)));
    let result = match (args.command, args.check) {
        (Some(Command::Completions { shell }), _) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut <Args as clap::CommandFactory>::command(), "switchyard", &mut script);
            std::io::stdout().lock().write_all(&script).map(|()| cli::Outcome::Clean).map_err(cli::write_failed)
        }
        (Some(Command::Rules { format }), _) => cli::rules(matches!(format, RulesFormat::Markdown)),
        (Some(Command::Explain { rule }), _) => cli::explain(&rule),
        (Some(Command::Preview { file, target, out }), _) => match out {
            None => cli::preview(&file, target.into()),
            Some(out) => cli::preview_all(&file, target.into(), &out),
        },
        (Some(Command::Tree { path, targets, format }), _) => {
            let targets: Vec<_> = targets.iter().map(|t| (*t).into()).collect();
            cli::tree(&path.unwrap_or_else(|| PathBuf::from(".")), &targets, matches!(format, RoutesFormat::Json))
        }
        (Some(Command::Lanes { path, lanes, format }), _) => {
            let path = path.unwrap_or_else(|| PathBuf::from("."));
            let lanes: Vec<_> = lanes.into_iter().map(Into::into).collect();
            match format {
                RoutesFormat::Json => cli::lanes_json(&path, &lanes),
                RoutesFormat::Table => cli::lanes(&path, &lanes),
            }
        }
        (Some(Command::Routes { path, format, grep }), _) => {
            cli::routes(&path.unwrap_or_else(|| PathBuf::from(".")), matches!(format, RoutesFormat::Json), grep.as_deref())
        }
        (Some(Command::Index { path, format }), _) => {
            cli::index(&path.unwrap_or_else(|| PathBuf::from(".")), matches!(format, IndexFormat::Json))
        }
        (None, true) => {
            let fail_level = match args.fail_level {
                FailLevel::Error => Severity::Error,
                FailLevel::Warning => Severity::Warning,
                FailLevel::Info => Severity::Info,
            };
            let format = match args.format {
                CheckFormat::Human => cli::CheckFormat::Human,
                CheckFormat::Json => cli::CheckFormat::Json,
                CheckFormat::Github => cli::CheckFormat::Github,
                CheckFormat::Sarif => cli::CheckFormat::Sarif,
            };
            let targets: Vec<_> = args.targets.iter().map(|t| (*t).into()).collect();
            cli::check(
                &args.path.unwrap_or_else(|| PathBuf::from(".")),
                &cli::CheckOptions {
                    format,
                    fail_level,
                    targets,
                    lanes: args.lanes.into_iter().map(Into::into).collect(),
                    rules: args.rules,
                    fix: args.fix,
                    exact: args.exact.then_some(cli::ExactOptions { binary: args.roundhouse, checkout: args.roundhouse_checkout }),
                },
            )
        }
        // LSP: exit code 0 when `shutdown` came before `exit`, 1 otherwise (as the protocol asks).
        (None, false) => {
            use std::io::IsTerminal;
            if std::io::stdin().is_terminal() {
                // Started by hand: an editor never gives a language server a terminal.
                let _ = writeln!(
                    std::io::stderr(),
                    "switchyard: a language server for Rails apps compiled with Roundhouse, speaking LSP on stdin and stdout \
                     to an editor. To check an app here, run `switchyard --check [PATH]` (`switchyard --help` lists the rest). \
                     Waiting for a client; Ctrl-D ends."
                );
            }
            switchyard::lsp::run_stdio().map(|clean| if clean { cli::Outcome::Clean } else { cli::Outcome::Findings })
        }
    };
    match result {
        Ok(outcome) => ExitCode::from(outcome as u8),
        // `| head` closed the pipe: say nothing, exit as SIGPIPE would have ended the process.
        Err(message) if message == cli::OUTPUT_CLOSED => ExitCode::from(141),
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "switchyard: error: {message}");
            ExitCode::from(2)
        }
    }
}
