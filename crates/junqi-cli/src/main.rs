//! `junqi`: the one command line of the project. Thin: it parses flags and
//! calls the crates; every error is one line on stderr and exit code 2.

mod commands;
mod live;
#[cfg(feature = "torch")]
mod overrides;
mod rules_arg;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "junqi", version = version(), about = "军棋 (Junqi) rules engine, simulator and tools", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Where network bots and training run: cpu, cuda or auto (CUDA when
    /// available). On the CPU, nets run in junqi's own forward pass.
    #[arg(long, global = true, value_name = "cpu|cuda|auto")]
    device: Option<String>,
    #[command(flatten)]
    inference: InferenceArgs,
}

/// How each net's inference service runs (one per net file per process).
#[derive(clap::Args)]
struct InferenceArgs {
    /// Threads running a net's forward passes (default: one per core; 1 on a GPU).
    #[arg(long, global = true, value_name = "N")]
    net_threads: Option<usize>,
    /// Most positions in one forward pass.
    #[arg(long, global = true, value_name = "N", default_value_t = junqi_net::ServiceOptions::default().max_batch)]
    net_batch: usize,
    /// Entries of a net's evaluation cache (0 = none).
    #[arg(long, global = true, value_name = "N", default_value_t = junqi_net::ServiceOptions::default().cache_entries)]
    net_cache: usize,
}

#[derive(Subcommand)]
enum Command {
    /// Print the legal moves of a position (or of each JFEN line on stdin).
    Moves(commands::moves::Args),
    /// Apply moves to a position and print the resulting JFEN and result.
    Apply(commands::apply::Args),
    /// Draw a position in the terminal.
    Show(commands::show::Args),
    /// Play a game against a bot in the terminal, seeing only what your seat may know.
    Play(commands::play::Args),
    /// Play a game of uniformly random legal moves from a seed.
    RandomGame(commands::random_game::Args),
    /// Count the leaf nodes of the action tree to a depth (flips count as actions).
    Perft(commands::perft::Args),
    /// Measure random-playout speed per mode on one thread and on all threads.
    Bench(commands::bench::Args),
    /// Play games between bots on all cores and write them to Parquet (games/, samples/).
    Selfplay(commands::selfplay::Args),
    /// Re-play stored games through the rules engine and report any that disagree.
    Replay(commands::replay::Args),
    /// Relabel a four-player run's positions with another bot's policy (the search's), as training samples.
    Reanalyse(commands::reanalyse::Args),
    /// Write stored games as text game records (JGN, PGN-like; docs/records.md).
    Export(commands::export::Args),
    /// Read text game records (JGN) into a games/ Parquet dataset.
    Import(commands::import::Args),
    /// Paired games among bots: crosstable and Bradley–Terry Elo with 95% intervals.
    Arena(commands::arena::Args),
    /// Sequential probability ratio test of a candidate bot against a baseline (or of given pair counts); exit 0 when H1 is accepted, 1 when H0 is, 3 without a decision.
    Sprt(commands::sprt::Args),
    /// Join the parts of a selfplay, arena, study or sprt run made with --part I/N, and write its report.
    Merge(commands::merge::Args),
    /// Studies over rule variants.
    #[command(subcommand)]
    Study(commands::study::Study),
    /// The strength regression suite, compared with a stored baseline (exit 1 on a regression).
    Regress(commands::regress::Args),
    /// Add the metadata checksum to net files or checkpoints written by older versions.
    SignNet(commands::sign_net::Args),
    /// Serve a bot over the engine protocol on stdin/stdout (docs/protocol.md).
    Engine(commands::engine::Args),
    /// Run the engine protocol's conformance suite against a program: `junqi engine-check -- PROGRAM ARGS`.
    EngineCheck(commands::engine_check::Args),
    /// A local web page: replay stored games, play against any bot, watch runs.
    Serve(commands::serve::Args),
    /// Train the policy/value net on a self-play dataset (TensorBoard logs, resumable checkpoints).
    #[cfg(feature = "torch")]
    Train(commands::train::Args),
    /// The closed loop: self-play with the best net, train, evaluate, promote; resumable.
    #[cfg(feature = "torch")]
    Loop(commands::training_loop::Args),
    /// How exploitable is a bot: train a best response to it (score against it with 95% intervals); resumable.
    #[cfg(feature = "torch")]
    Exploit(commands::exploit::Args),
}

/// A failure that has already been reported line by line (stdin modes):
/// exit 2 without printing anything more.
#[derive(Debug)]
pub struct AlreadyReported;
impl std::fmt::Display for AlreadyReported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("some input lines had errors")
    }
}
impl std::error::Error for AlreadyReported {}

/// A check that ran and found problems (`junqi replay`), already reported on
/// stdout: exit code 1.
#[derive(Debug)]
pub struct CheckFailed;
impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the check found problems")
    }
}
impl std::error::Error for CheckFailed {}

/// A sequential test that stopped without a decision (`junqi sprt` at its
/// game limit, or `--penta` counts inside the bounds), already reported on
/// stdout: exit code 3.
#[derive(Debug)]
pub struct Undecided;
impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the test reached no decision")
    }
}
impl std::error::Error for Undecided {}

/// Stopped by Ctrl-C: the message goes to stderr as is, exit code 130.
#[derive(Debug)]
pub struct Interrupted(pub String);
impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Interrupted {}

/// `--version`: what every run file and report records as its code version
/// (the crate version and the commit, `0.1.0+1a2b3c4`).
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(junqi_selfplay::code_version)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version, and no subcommand at all: clap's own help.
        Err(e) if !e.use_stderr() || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        Err(e) => {
            // clap's message is a paragraph then tips and usage: keep the
            // paragraph, on one line.
            let text = e.to_string();
            let paragraph: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            eprintln!("{} (see --help)", one_line(&paragraph.join(" ")));
            return ExitCode::from(2);
        }
    };
    // Long runs catch Ctrl-C before anything else (see live::catch_ctrl_c);
    // the short commands keep the default: a Ctrl-C ends them at once.
    #[allow(unreachable_patterns)]
    let long_run = match &cli.command {
        Command::Selfplay(_) | Command::Arena(_) | Command::Sprt(_) | Command::Study(_) | Command::Regress(_) => true,
        #[cfg(feature = "torch")]
        Command::Train(_) | Command::Loop(_) | Command::Exploit(_) => true,
        _ => false,
    };
    if long_run {
        if let Err(e) = live::catch_ctrl_c() {
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            return ExitCode::from(2);
        }
    }
    register_bots();
    if let Err(e) = setup_nets(cli.device.as_deref(), &cli.inference) {
        eprintln!("error: {}", one_line(&format!("{e:#}")));
        return ExitCode::from(2);
    }
    let device = cli.device.as_deref();
    let result = match cli.command {
        Command::Moves(a) => commands::moves::run(a),
        Command::Apply(a) => commands::apply::run(a),
        Command::Show(a) => commands::show::run(a),
        Command::SignNet(a) => commands::sign_net::run(a),
        Command::Engine(a) => commands::engine::run(a),
        Command::EngineCheck(a) => commands::engine_check::run(a),
        Command::Serve(a) => commands::serve::run(a),
        Command::Play(a) => commands::play::run(a),
        Command::RandomGame(a) => commands::random_game::run(a),
        Command::Perft(a) => commands::perft::run(a),
        Command::Bench(a) => commands::bench::run(a, device),
        Command::Selfplay(a) => commands::selfplay::run(a),
        Command::Replay(a) => commands::replay::run(a),
        Command::Reanalyse(a) => commands::reanalyse::run(a),
        Command::Export(a) => commands::export::run(a),
        Command::Import(a) => commands::import::run(a),
        Command::Arena(a) => commands::arena::run(a),
        Command::Sprt(a) => commands::sprt::run(a),
        Command::Merge(a) => commands::merge::run(a),
        Command::Study(s) => commands::study::run(s),
        Command::Regress(a) => commands::regress::run(a),
        #[cfg(feature = "torch")]
        Command::Train(a) => commands::train::run(a, device),
        #[cfg(feature = "torch")]
        Command::Loop(a) => commands::training_loop::run(a, device),
        #[cfg(feature = "torch")]
        Command::Exploit(a) => commands::exploit::run(a, device),
    };
    let _ = device;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<AlreadyReported>() => ExitCode::from(2),
        Err(e) if e.is::<CheckFailed>() => ExitCode::from(1),
        Err(e) if e.is::<Undecided>() => ExitCode::from(3),
        Err(e) if e.is::<Interrupted>() => {
            eprintln!("{e}");
            ExitCode::from(130)
        }
        // The reader went away (`junqi … | head`): nothing left to say.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// Every bot kind this binary builds from a spec: the built-in ones of
/// `junqi-bots` (random, greedy, heuristic, mcts, cheat-mcts) and these two,
/// whose crates the lower ones cannot depend on (libtorch, child processes).
/// Registered once, before any command builds a bot.
fn register_bots() {
    junqi_net::register_net_bots(); // net:…, and mcts:…,eval=net:…; the four-player agent net:FILE
    junqi_engine::register_engine_bot(); // engine:cmd=…
}

/// Serve the network bots on `--device` with the inference options.
fn setup_nets(device: Option<&str>, args: &InferenceArgs) -> anyhow::Result<()> {
    let on_gpu = device_is_gpu(device)?;
    let settings = junqi_net::InferenceSettings {
        options: junqi_net::ServiceOptions {
            executors: args.net_threads.unwrap_or(if on_gpu.is_some() { 1 } else { 0 }),
            max_batch: args.net_batch,
            cache_entries: args.net_cache,
        },
        backend: None,
    };
    settings.options.check()?;
    #[cfg(feature = "torch")]
    let settings = match on_gpu {
        Some(choice) => junqi_net::InferenceSettings { backend: Some(junqi_train::torch_backend(choice)), ..settings },
        None => settings,
    };
    junqi_net::set_inference_settings(settings);
    Ok(())
}

/// `Some(device)` when `--device` puts the nets on a GPU (libtorch), `None`
/// for the CPU (junqi's own forward pass).
#[cfg(feature = "torch")]
fn device_is_gpu(device: Option<&str>) -> anyhow::Result<Option<junqi_train::DeviceChoice>> {
    let choice: junqi_train::DeviceChoice = device.unwrap_or("auto").parse().map_err(anyhow::Error::msg)?;
    Ok(choice.resolve()?.is_cuda().then_some(choice))
}

#[cfg(not(feature = "torch"))]
fn device_is_gpu(device: Option<&str>) -> anyhow::Result<Option<()>> {
    match device {
        None | Some("cpu") | Some("auto") => Ok(None),
        Some(d) => anyhow::bail!("--device {d}: this `junqi` was built without the `torch` feature"),
    }
}

/// A message on one line: user text inside it (a value, a file name) may hold
/// line breaks, which would break the one-error-line promise and the
/// line-for-line output of the stdin modes.
pub fn one_line(message: &str) -> String {
    message.replace('\r', "\\r").replace('\n', "\\n")
}
