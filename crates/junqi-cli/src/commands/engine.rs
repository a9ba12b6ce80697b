//! `junqi engine --bot SPEC`: a bot behind the engine protocol (docs/protocol.md).

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// The bot to serve, e.g. `heuristic`, `mcts:800` or `net:anqi` (a fair bot:
    /// an engine is told only its seat's view); with --siguo a four-player bot
    /// (random, greedy, heuristic, mcts:N).
    #[arg(long, value_name = "SPEC")]
    bot: String,
    /// Speak the four-player (四国军棋) protocol (docs/protocol.md, "Four
    /// players"): `newgame siguo …`, a seat 0–3, four-player moves.
    #[arg(long)]
    siguo: bool,
}

pub fn run(args: Args) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    if args.siguo {
        return junqi_engine::siguo::serve_siguo(&args.bot, stdin.lock(), stdout.lock()).map_err(anyhow::Error::msg);
    }
    let bot: junqi_bots::BotSpec = args.bot.parse()?;
    junqi_engine::serve(&bot, stdin.lock(), stdout.lock()).map_err(anyhow::Error::msg)
}
