//! Games with net bots do not depend on how their positions are batched:
//! the same seed gives the same games and samples whatever the thread
//! count, the games in flight, the executors, the batch size and the
//! evaluation cache (the CPU forward pass answers a position the same in
//! any batch). It changes the process-wide inference settings between runs,
//! so it holds `shared_services()` (the binary's other service users wait).

use junqi_core::{Mode, Rules};
use junqi_net::{
    register_net_bots, release_shared_services, set_inference_settings, shared_stats, InferenceSettings, ServiceOptions,
};
use junqi_selfplay::{prepare, read_games_file, read_samples_file, shard_files, Config, RunOptions, SamplesPerGame};
use std::path::Path;

fn run(mode: Mode, dir: &Path, threads: usize, in_flight: usize, options: ServiceOptions) -> (Vec<String>, usize, f64) {
    release_shared_services();
    set_inference_settings(InferenceSettings { options, backend: None });
    let _ = std::fs::remove_dir_all(dir);
    let mut rules = Rules::preset(mode);
    rules.max_plies = 60;
    let bots = ["mcts:sims=12,c=4,noise=0.25,temp=1,temp_plies=10,mix=0.5,eval=net:default", "net:path=default,temp=1"];
    let config =
        Config::new(rules, 8, bots, 11).unwrap().with_samples(SamplesPerGame::All).with_swap(true).with_shard_games(4);
    let summary =
        prepare(config, Some(dir)).unwrap().run(&RunOptions { threads, in_flight, ..Default::default() }).unwrap();
    assert_eq!(summary.games_complete, 8);
    let mut rows = Vec::new();
    for f in shard_files(&dir.join("games")).unwrap() {
        rows.extend(
            read_games_file(&f).unwrap().into_iter().map(|g| format!("{} {:?} {}", g.game_id, g.moves, g.result)),
        );
    }
    for f in shard_files(&dir.join("samples")).unwrap() {
        rows.extend(read_samples_file(&f).unwrap().into_iter().map(|s| format!("{s:?}")));
    }
    let stats = shared_stats();
    (rows, summary.in_flight, stats.mean_batch())
}

#[test]
fn games_do_not_depend_on_batching_threads_or_the_cache() {
    let _services = crate::shared_services();
    register_net_bots();
    let root = std::env::temp_dir().join(format!("junqi-net-determinism-{}", std::process::id()));
    for mode in [Mode::Fanqi, Mode::Anqi] {
        let dir = root.join(mode.name());
        let (first, in_flight, _) =
            run(mode, &dir, 1, 1, ServiceOptions { executors: 1, max_batch: 1, cache_entries: 0 });
        assert_eq!(in_flight, 1);
        assert!(first.len() > 8 * 20, "{mode}: {} rows", first.len());
        for (threads, in_flight, options) in [
            (2, 0, ServiceOptions::default()),
            (1, 3, ServiceOptions { executors: 2, max_batch: 2, cache_entries: 50 }),
            (2, 5, ServiceOptions { executors: 3, max_batch: 64, cache_entries: 100_000 }),
        ] {
            let (rows, used, mean_batch) = run(mode, &dir, threads, in_flight, options.clone());
            assert_eq!(rows, first, "{mode}: {threads} threads, {in_flight} in flight, {options:?}");
            if in_flight == 0 {
                assert_eq!(used, junqi_selfplay::BATCHED_IN_FLIGHT, "net bots get many games in flight");
            }
            if options.max_batch >= 64 {
                assert!(mean_batch > 1.5, "{mode}: mean batch {mean_batch}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}
