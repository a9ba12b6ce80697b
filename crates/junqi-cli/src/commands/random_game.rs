//! `junqi random-game`: a game of uniformly random legal actions from a seed;
//! with `--siguo`, of the four-player game (docs/rules.md §10).

use crate::rules_arg::RulesArgs;
use anyhow::{bail, Result};
use junqi_core::{playout, rng_from_seed, Mode, Position};
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// fanqi, anqi or mingqi (default: the mode of --rules, else fanqi).
    #[arg(long)]
    mode: Option<Mode>,
    /// Seed for the deal or deployments and for every move choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The four-player game (四国军棋): --rules names its mode (anqi, shuangming,
    /// quanming; default anqi) and --set takes its options (docs/rules.md §10.11).
    #[arg(long)]
    siguo: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

pub fn run(args: Args) -> Result<()> {
    if args.siguo {
        if args.mode.is_some() {
            bail!("--mode is for the two-player game; with --siguo, --rules names the mode");
        }
        let rules = super::perft::siguo_rules(&args.rules, None)?;
        let mut rng = rng_from_seed(args.seed);
        let start = junqi_siguo::Position::new_game_with(rules, &mut rng);
        let game = junqi_siguo::random_game(start, &mut rng);
        let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
        writeln!(std::io::stdout(), "start: {}", game.start)?;
        writeln!(std::io::stdout(), "moves: {}", moves.join(" "))?;
        writeln!(std::io::stdout(), "plies: {}", game.moves.len())?;
        writeln!(std::io::stdout(), "result: {} ({})", game.outcome.result_str(), game.outcome.termination.name())?;
        return Ok(());
    }
    let mode = match (args.mode, &args.rules.rules) {
        (Some(m), _) => Some(m),
        (None, Some(_)) => None,
        (None, None) => Some(Mode::Fanqi),
    };
    let rules = args.rules.resolve(mode)?;
    let mut rng = rng_from_seed(args.seed);
    let start = Position::new_game_with(rules, &mut rng);
    let game = playout::random_game(start, &mut rng);
    let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
    writeln!(std::io::stdout(), "start: {}", game.start)?;
    writeln!(std::io::stdout(), "moves: {}", moves.join(" "))?;
    writeln!(std::io::stdout(), "plies: {}", game.moves.len())?;
    writeln!(std::io::stdout(), "result: {} ({})", game.outcome.result_str(), game.outcome.termination.name())?;
    Ok(())
}
