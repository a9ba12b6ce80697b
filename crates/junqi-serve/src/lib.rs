//! `junqi serve`: a local web server to replay stored games, play against
//! any bot and watch loop, arena and study runs, all in the browser.
//!
//! The page (`assets/`) is embedded in the binary. Every request that
//! reads a run names it by a directory below one of the `--runs` roots;
//! nothing outside them is read. The referee of a game against a bot stays
//! here: the page only ever receives the person's own view of the board
//! (an information set's view, [`board::encode`]), so a hidden kind never
//! reaches the browser while the game is on.

pub mod board;
pub mod clock;
pub mod dashboards;
pub mod datasets;
pub mod error;
pub mod knowledge;
pub mod play;
pub mod replay;
mod routes;
pub mod samples;
pub mod siguo;
pub mod siguo_replay;
pub mod variants;

pub use error::ApiError;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// What `junqi serve` serves.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The address to listen on (port 0: any free port; the one chosen is printed).
    pub addr: SocketAddr,
    /// Directories whose runs (self-play, arena, study, loop) are shown.
    pub runs: Vec<PathBuf>,
    /// Offer `engine:` bots, which start programs on this machine.
    pub allow_engines: bool,
    /// `--tc BASE+INC`: a clock for the built-in search bots of every game
    /// (`mcts`, `cheat-mcts` without their own `movetime`/`tc`; the
    /// four-player `mcts` without its own `movetime`), kept per game.
    pub tc: Option<String>,
}

/// State shared by every request.
pub(crate) struct AppState {
    pub roots: Vec<PathBuf>,
    pub allow_engines: bool,
    pub tc: Option<String>,
    pub datasets: datasets::Cache,
    pub games: play::Sessions,
    pub siguo: siguo::SiguoSessions,
}

/// Listen on `options.addr` and serve until Ctrl-C. Prints
/// `listening on http://ADDR` once the socket is bound (tests wait for it).
pub fn serve(options: ServeOptions) -> std::io::Result<()> {
    if let Some(tc) = &options.tc {
        if junqi_bots::mcts::clock::parse_clock(tc).is_none() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("--tc `{tc}`: expected <seconds>+<increment seconds>, e.g. 60+0.5"),
            ));
        }
    }
    for root in &options.runs {
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("--runs {}: no such directory", root.display()),
            ));
        }
    }
    // No dataset anywhere: the sample games in the binary, as one more root.
    let mut roots = options.runs.clone();
    let samples = if datasets::discover(&roots).is_empty() {
        let s = samples::Samples::write_below(&std::env::temp_dir())?;
        roots.push(s.dir().to_path_buf());
        Some(s)
    } else {
        None
    };
    let samples_dir = samples.as_ref().map(|s| s.dir().to_path_buf());
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(AppState {
            roots: roots.clone(),
            allow_engines: options.allow_engines,
            tc: options.tc.clone(),
            datasets: datasets::Cache::default(),
            games: play::Sessions::default(),
            siguo: siguo::SiguoSessions::default(),
        });
        // Written, not println!: a closed stdout must not stop the server.
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{addr}");
        for root in &options.runs {
            let _ = writeln!(out, "runs from {}", root.display());
        }
        if let Some(tc) = &options.tc {
            let _ = writeln!(out, "the built-in search bots play on a clock of {tc} a game");
        }
        if let Some(dir) = &samples_dir {
            let _ =
                writeln!(out, "no games below the --runs directories: showing the sample games ({})", dir.display());
        }
        let _ = out.flush();
        drop(out);
        axum::serve(listener, routes::router(state)).with_graceful_shutdown(stop_signal()).await
    });
    drop(samples);
    served
}

/// Ctrl-C, or (on Unix) SIGTERM as `kill` and test harnesses send: either
/// ends the server cleanly, so the sample games' directory is removed.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
