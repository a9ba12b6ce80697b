//! `junqi engine --bot SPEC`: a bot behind the engine protocol (docs/protocol.md).

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// The bot to serve, e.g. `heuristic`, `mcts:800` or `net:anqi` (a fair bot:
    /// an engine is told only its seat's view).
    #[arg(long, value_name = "SPEC")]
    bot: junqi_bots::BotSpec,
}

pub fn run(args: Args) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    junqi_engine::serve(&args.bot, stdin.lock(), stdout.lock()).map_err(anyhow::Error::msg)
}
