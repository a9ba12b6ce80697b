//! The training loader on the compact samples: every example's planes and
//! legal actions, rebuilt into a batch, are exactly what `junqi-env` gives
//! for the same position (the game replayed to that ply) in every mode; a
//! shard of another schema is refused with a clear error.

use crate::common::temp_dir;
use junqi_core::{Game, Mode, MoveList, Position, Rules, ACTIONS};
use junqi_env::{encode_mask, encode_observation, OBS_SIZE};
use junqi_selfplay::{prepare, read_games_file, shard_files, Config, RunOptions, SamplesPerGame, GAMES_DIR};
use junqi_train::{Batch, DataWindow, Loader};
use std::collections::HashMap;
use tch::Device;

#[test]
fn the_loader_rebuilds_the_env_planes_and_legal_ids_in_every_mode() {
    for mode in Mode::ALL {
        let dir = temp_dir(&format!("loader-{}", mode.name()));
        let config = Config::new(Rules::preset(mode), 6, ["greedy", "random"], 9)
            .unwrap()
            .with_samples(SamplesPerGame::Count(40))
            .with_shard_games(3);
        prepare(config, Some(&dir)).unwrap().run(&RunOptions { threads: 2, ..Default::default() }).unwrap();
        let games: HashMap<u64, _> = shard_files(&dir.join(GAMES_DIR))
            .unwrap()
            .iter()
            .flat_map(|f| read_games_file(f).unwrap())
            .map(|g| (g.game_id, g))
            .collect();

        let window = DataWindow::open(&dir, 0).unwrap();
        let rows = window.rows as usize;
        let mut loader = Loader::new(window, 100_000, 3);
        let examples = loader.next_examples(rows).unwrap();
        let batch = Batch::new(&examples, junqi_env::OBS_CHANNELS, Device::Cpu).unwrap();
        let obs: Vec<f32> = Vec::try_from(batch.obs.reshape([-1])).unwrap();
        let legal: Vec<bool> = Vec::try_from(batch.legal_mask().reshape([-1])).unwrap();

        let (mut want_obs, mut want_mask, mut moves) = (vec![0.0f32; OBS_SIZE], vec![0u8; ACTIONS], MoveList::new());
        for (i, e) in examples.iter().enumerate() {
            let g = &games[&e.game_id];
            let mut game = Game::new(Position::from_jfen(&g.start_jfen, Rules::preset(mode)).unwrap());
            for m in &g.moves[..e.ply as usize] {
                game.play(m.parse().unwrap()).unwrap();
            }
            let info = game.infoset(game.truth().turn());
            encode_observation(info, &mut want_obs);
            let got = &obs[i * OBS_SIZE..(i + 1) * OBS_SIZE];
            assert!(
                got.iter().zip(&want_obs).all(|(a, b)| a.to_bits() == b.to_bits()),
                "{mode}: game {} ply {}: planes differ",
                e.game_id,
                e.ply
            );
            encode_mask(info, &mut moves, &mut want_mask);
            let row = &legal[i * ACTIONS..(i + 1) * ACTIONS];
            assert!(row.iter().zip(&want_mask).all(|(&a, &b)| a == (b == 1)), "{mode}: legal actions differ");
            let ids: Vec<u16> = (0..ACTIONS as u16).filter(|&a| want_mask[a as usize] == 1).collect();
            assert_eq!(e.legal, ids);
        }
        assert!(examples.len() > 100, "{mode}: {} examples", examples.len());
    }
}

#[test]
fn a_shard_of_another_schema_is_refused_with_a_clear_error() {
    let dir = temp_dir("loader-foreign");
    let config = Config::new(Rules::preset(Mode::Fanqi), 4, ["random", "random"], 1).unwrap().with_shard_games(2);
    prepare(config, Some(&dir)).unwrap().run(&RunOptions { threads: 1, ..Default::default() }).unwrap();
    // A games shard put where a samples shard belongs.
    std::fs::copy(dir.join("games/shard-000001.parquet"), dir.join("samples/shard-000001.parquet")).unwrap();
    // With its checksum record, so the file passes that check and is read.
    std::fs::copy(dir.join("games/.shard-000001.parquet.crc32c"), dir.join("samples/.shard-000001.parquet.crc32c"))
        .unwrap();
    let window = DataWindow::open(&dir, 0).unwrap();
    let err = Loader::new(window, 1_000_000, 0).next_batch(8, Device::Cpu).unwrap_err().to_string();
    assert!(err.contains("samples/shard-000001.parquet") && err.contains("not a samples shard"), "{err}");
}
