//! `junqi bench --net FILE`: how fast a net runs here, in one run, against
//! a reference rate measured in the same run.
//!
//! * The reference: the peak FP32 rate of the cores (fused multiply-adds in
//!   registers, every thread), where the CPU has them the bf16 and int8
//!   peaks (`vdpbf16ps`, `vpdpbusd` in registers), and, with libtorch, a
//!   large matrix product.
//! * Raw forward passes through the inference service (junqi's CPU engine
//!   in each precision this CPU runs: FP32, bf16, int8) at batch 1 … 1024,
//!   each against its own precision's peak, and libtorch's forward pass at
//!   the same sizes. With `--device cuda`: libtorch on the GPU through the
//!   service in FP32, bf16 and fp16 (autocast) instead.
//! * Training (libtorch): forward + backward at the training batch, the
//!   loader alone, and the two together.
//! * Self-play with the net (`mcts:sims=48,…,eval=net:FILE` by default,
//!   once per precision, `eval="net:path=FILE,precision=P"`): positions/s,
//!   net requests and forward passes per position, mean batch, cache hits,
//!   in a steady window after a warm-up.
//! * Writing samples: random 翻棋 self-play with every sample written or
//!   not, and what that costs per sample.
//!
//! FLOPs are the net's model FLOPs ([`junqi_net::ModelConfig::forward_flops`]:
//! every plane through the 3×3 stem, all 3,600 logits); the CPU engine
//! skips work the model counts (the constant planes, illegal logits), so
//! its rate in model FLOPs can exceed what it executes. The trunk's 3×3
//! convolutions, which it computes in full, are given separately.

use anyhow::{bail, Context, Result};
use junqi_bots::BotSpec;
use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules};
use junqi_env::ObsCode;
use junqi_net::{CpuFeatures, CpuNet, InferenceService, NetFile, NetInput, NetPrecision, Precision, ServiceOptions};
use junqi_selfplay::{prepare, Config, RunOptions, SamplesPerGame};
use rand::Rng;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What the net benchmark runs; see `junqi bench --help`.
pub struct NetBench {
    pub net: String,
    pub threads: usize,
    pub seconds: f64,
    pub warmup: f64,
    pub sims: u32,
    pub in_flight: usize,
    pub bot: Option<BotSpec>,
    pub seed: u64,
    /// `--device`: `cuda` (or `auto` with a GPU) measures libtorch on the GPU.
    #[cfg_attr(not(feature = "torch"), allow(dead_code))]
    pub device: Option<String>,
}

/// The batch sizes of the raw forward-pass table.
const BATCHES: [usize; 5] = [1, 8, 64, 256, 1024];

fn pct(x: f64, of: f64) -> String {
    format!("{:.0}%", 100.0 * x / of)
}

/// The net file to measure: a path, `default`, or `random:BxC` (a fresh
/// net of B blocks and C channels, bilinear head, written to `tmp`).
fn net_path(spec: &str, tmp: &Path) -> Result<PathBuf> {
    if let Some(shape) = spec.strip_prefix("random:") {
        let (b, c) = shape.split_once('x').context("random nets are `random:BLOCKSxCHANNELS`, e.g. random:10x128")?;
        let model = junqi_net::ModelConfig {
            blocks: b.parse().context("blocks")?,
            channels: c.parse().context("channels")?,
            value_planes: 4,
            value_hidden: 128,
            policy_head: junqi_net::PolicyHead::Bilinear,
            ..Default::default()
        };
        model.check().map_err(anyhow::Error::msg)?;
        let path = tmp.join(format!("random-{b}x{c}.safetensors"));
        NetFile::random(&model, 1).write(&path)?;
        return Ok(path);
    }
    Ok(junqi_net::resolve_net_path(spec))
}

/// Distinct inputs from random 翻棋 games.
fn inputs(n: usize) -> Vec<NetInput> {
    let mut rng = rng_from_seed(5);
    let mut out = Vec::with_capacity(n);
    let mut moves = MoveList::new();
    while out.len() < n {
        let mut game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), rng.random()));
        for _ in 0..rng.random_range(0..250) {
            game.truth().legal_moves(&mut moves);
            if game.truth().outcome_given(moves.len()).is_some() {
                break;
            }
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        game.truth().legal_moves(&mut moves);
        if game.truth().outcome_given(moves.len()).is_none() {
            let seat = game.truth().turn();
            out.push(NetInput::from_moves(ObsCode::from_infoset(game.infoset(seat)), moves.as_slice(), seat).0);
        }
    }
    out
}

/// Positions/s through a service with `executors` executors and batches of
/// `batch`: `threads` clients each submit `batch` positions and wait. The
/// backend is the one `--device` chose (the CPU engine, or libtorch on a GPU).
fn service_rate(
    path: &Path,
    precision: NetPrecision,
    inputs: &[NetInput],
    threads: usize,
    batch: usize,
    time: Duration,
) -> Result<(f64, f64)> {
    let settings = junqi_net::inference_settings();
    let executors = if settings.backend.is_some() { 1 } else { threads };
    let options = ServiceOptions { executors, max_batch: batch, cache_entries: 0 };
    let factory = match &settings.backend {
        None => {
            junqi_net::CpuBackend::factory(std::sync::Arc::new(CpuNet::load(path)?.with_precision(precision.engine())))
        }
        Some(make) => make(path, precision)?,
    };
    let service = InferenceService::start(factory, &options)?;
    let start = Instant::now();
    let done: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let service = service.clone();
                s.spawn(move || {
                    let mut n = 0u64;
                    let mut at = t * 997;
                    while start.elapsed() < time {
                        let tickets: Vec<_> =
                            (0..batch).map(|k| service.submit(inputs[(at + k) % inputs.len()].clone())).collect();
                        at += batch;
                        for t in tickets {
                            t.wait();
                        }
                        n += batch as u64;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("bench client")).sum()
    });
    let secs = start.elapsed().as_secs_f64();
    Ok((done as f64 / secs, service.stats().mean_batch()))
}

pub fn run(b: NetBench) -> Result<()> {
    if !(b.seconds > 0.0 && b.seconds <= 3600.0 && b.warmup >= 0.0 && b.warmup <= 3600.0) {
        bail!("--seconds must be in (0, 3600] and --warmup in [0, 3600]");
    }
    let tmp = std::env::temp_dir().join(format!("junqi-bench-net-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let result = run_in(&b, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn run_in(b: &NetBench, tmp: &Path) -> Result<()> {
    let path = net_path(&b.net, tmp)?;
    let file = NetFile::read(&path)?;
    let model = file.model.clone();
    let net = CpuNet::from_file(&file)?;
    let (flops, trunk) = (model.forward_flops() as f64, model.trunk_flops() as f64);
    let threads = b.threads;
    println!(
        "net {} ({} blocks × {} channels, {:?} policy head): {:.2} MFLOP per forward pass (model), {:.2} of them in the trunk's 3×3 convolutions",
        path.display(),
        model.blocks,
        model.channels,
        model.policy_head,
        flops / 1e6,
        trunk / 1e6
    );
    let gpu = junqi_net::inference_settings().backend.is_some();
    // The precisions this CPU runs (FP32 alone on a GPU: the precision is the CPU engine's).
    let precisions: Vec<Precision> = if gpu {
        vec![Precision::Fp32]
    } else {
        Precision::ALL.into_iter().filter(|&p| CpuFeatures::detect().supports(p)).collect()
    };
    println!(
        "machine: {threads} thread(s); CPU engine: {}; precisions: {}",
        if net.uses_simd() { "AVX2+FMA kernels" } else { "portable kernels" },
        precisions.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    );

    // ---- the reference ----
    let on_all_threads = |rate: fn(Duration) -> Option<f64>| -> Option<f64> {
        std::thread::scope(|s| {
            let h: Vec<_> = (0..threads).map(|_| s.spawn(move || rate(Duration::from_secs_f64(1.5)))).collect();
            h.into_iter().map(|h| h.join().expect("peak thread")).sum()
        })
    };
    let peak = on_all_threads(|t| Some(junqi_net::cpu::kernels::peak_gflops(t))).unwrap_or(0.0);
    println!("\nreference: peak FP32 rate {peak:.1} GFLOP/s (fused multiply-adds in registers, {threads} threads)");
    let mut peaks = vec![(Precision::Fp32, peak)];
    for (p, rate, what) in [
        (Precision::Bf16, junqi_net::cpu::bf16::peak_gflops as fn(Duration) -> Option<f64>, "vdpbf16ps"),
        (Precision::Int8, junqi_net::cpu::int8::peak_gops, "vpdpbusd"),
    ] {
        if precisions.contains(&p) {
            let r = on_all_threads(rate).unwrap_or(0.0);
            println!(
                "           peak {p} rate {r:.1} G{}/s ({what} in registers, {threads} threads; {:.2}× FP32)",
                if p == Precision::Int8 { "OP" } else { "FLOP" },
                r / peak
            );
            peaks.push((p, r));
        }
    }
    #[cfg(feature = "torch")]
    {
        let sgemm = torch::sgemm_gflops(threads as i32, 2048);
        println!("           libtorch sgemm 2048×2048: {sgemm:.1} GFLOP/s ({} of peak)", pct(sgemm, peak));
    }

    // ---- raw forward passes ----
    let pool = inputs(2048);
    // Per precision: (batch, positions/s).
    let mut raw: Vec<(Precision, Vec<(usize, f64)>)> = Vec::new();
    for &(p, own_peak) in &peaks {
        if gpu {
            println!("\nraw forward passes through the inference service (libtorch on the GPU, 1 executor):");
        } else {
            println!(
                "\nraw forward passes, junqi's CPU engine in {p} through the inference service ({threads} executors):"
            );
        }
        println!(
            "{:>6} {:>12} {:>10} {:>16} {:>12} {:>16} {:>12}",
            "batch",
            "positions/s",
            "mean batch",
            "GFLOP/s (model)",
            format!("of {p} peak"),
            "GFLOP/s (trunk)",
            "trunk of peak"
        );
        let mut rates = Vec::new();
        for &batch in &BATCHES {
            let (rate, mean) = service_rate(&path, p.into(), &pool, threads, batch, Duration::from_secs(2))?;
            rates.push((batch, rate));
            println!(
                "{batch:>6} {rate:>12.0} {mean:>10.1} {:>16.1} {:>12} {:>16.1} {:>12}",
                rate * flops / 1e9,
                pct(rate * flops / 1e9, own_peak),
                rate * trunk / 1e9,
                pct(rate * trunk / 1e9, own_peak)
            );
        }
        if p != Precision::Fp32 {
            let fp32 = &raw[0].1;
            let speedups: Vec<String> =
                rates.iter().zip(fp32).map(|((b, r), (_, f))| format!("{b}: {:.2}×", r / f)).collect();
            println!("  {p} ÷ fp32 by batch: {}", speedups.join(", "));
        }
        raw.push((p, rates));
    }
    if gpu {
        // libtorch's reduced precisions (autocast), asked as a net spec's `precision` asks.
        for p in [NetPrecision::Bf16, NetPrecision::Fp16] {
            println!("\nraw forward passes through the inference service (libtorch on the GPU in {p}, 1 executor):");
            println!("{:>6} {:>12} {:>10} {:>10}", "batch", "positions/s", "mean batch", "÷ fp32");
            for &(batch, fp32) in &raw[0].1 {
                let (rate, mean) = service_rate(&path, p, &pool, threads, batch, Duration::from_secs(2))?;
                println!("{batch:>6} {rate:>12.0} {mean:>10.1} {:>9.2}×", rate / fp32);
            }
        }
    }
    #[cfg(feature = "torch")]
    {
        let device: junqi_train::DeviceChoice =
            b.device.as_deref().unwrap_or("cpu").parse().map_err(anyhow::Error::msg)?;
        torch::forward_table(&path, device, threads as i32, &pool, flops, peak)?;
        torch::training(&model, device, threads as i32, flops, peak, tmp)?;
    }

    // ---- self-play ----
    // The default bot once per precision (the net spec's `precision` key); a given bot as it is.
    let runs: Vec<(Precision, BotSpec)> = match &b.bot {
        Some(spec) => vec![(Precision::Fp32, spec.clone())],
        None => peaks
            .iter()
            .map(|&(p, _)| {
                let mut net = BotSpec::new("net").with("path", path.display());
                if p != Precision::Fp32 {
                    net = net.with("precision", p);
                }
                let bot = BotSpec::new("mcts")
                    .with("sims", b.sims)
                    .with("c", 4)
                    .with("noise", 0.25)
                    .with("alpha", 0.3)
                    .with("temp", 1)
                    .with("temp_plies", 30)
                    .with("mix", 0.5)
                    .with("eval", net);
                (p, bot)
            })
            .collect(),
    };
    let mut rates = Vec::new();
    for (p, bot) in &runs {
        let own_peak = peaks.iter().find(|q| q.0 == *p).map_or(peak, |q| q.1);
        let rates_of = raw.iter().find(|r| r.0 == *p).map_or(&raw[0].1, |r| &r.1);
        let raw256 = rates_of.iter().find(|r| r.0 == 256).map_or(0.0, |r| r.1);
        rates.push((*p, selfplay(b, bot, flops, trunk, own_peak, raw256)?));
    }
    if rates.len() > 1 {
        let (fp32, fp32_forward) = rates[0].1;
        println!(
            "\nself-play by precision: positions/s {}; forward passes/s {} (the windows' games are of different \
             ages where the rates differ, and the net requests per position change with the age)",
            rates.iter().map(|(p, r)| format!("{p} {:.1} ({:.2}×)", r.0, r.0 / fp32)).collect::<Vec<_>>().join(", "),
            rates
                .iter()
                .map(|(p, r)| format!("{p} {:.0} ({:.2}×)", r.1, r.1 / fp32_forward))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    // ---- writing ----
    writing(threads, b.seed, tmp)?;
    Ok(())
}

/// Steady-state self-play: games started without end, measured between
/// `warmup` and `warmup + seconds`.
/// Returns the positions/s and forward passes/s; `peak` is the rate of the net's precision.
fn selfplay(b: &NetBench, bot: &BotSpec, flops: f64, trunk: f64, peak: f64, raw256: f64) -> Result<(f64, f64)> {
    junqi_net::release_shared_services();
    let threads = b.threads;
    let games = 1_000_000u64;
    let config = Config::new(Rules::preset(Mode::Fanqi), games, [bot, bot], b.seed)?
        .with_samples(SamplesPerGame::All)
        .with_shard_games(games.div_ceil(threads as u64));
    let plan = prepare(config, None)?;
    let options = RunOptions { threads, in_flight: b.in_flight, ..Default::default() };
    let (stop, progress) = (options.stop.clone(), options.progress.clone());
    println!("\nself-play, {threads} threads, {bot}:");
    let (summary, window) = std::thread::scope(|s| -> Result<_> {
        let runner = s.spawn(|| plan.run(&options));
        std::thread::sleep(Duration::from_secs_f64(b.warmup));
        let (m0, g0, p0, s0, t0) = (
            progress.moves.load(Ordering::Relaxed),
            progress.games.load(Ordering::Relaxed),
            progress.plies.load(Ordering::Relaxed),
            junqi_net::shared_stats(),
            Instant::now(),
        );
        std::thread::sleep(Duration::from_secs_f64(b.seconds));
        let window = (
            progress.moves.load(Ordering::Relaxed) - m0,
            progress.games.load(Ordering::Relaxed) - g0,
            progress.plies.load(Ordering::Relaxed) - p0,
            junqi_net::shared_stats().since(&s0),
            t0.elapsed().as_secs_f64(),
        );
        stop.store(true, Ordering::SeqCst);
        let summary = runner.join().expect("self-play thread")?;
        Ok((summary, window))
    })?;
    let (moves, finished, finished_plies, nets, secs) = window;
    let positions = moves as f64 / secs;
    let forward = nets.positions as f64 / secs;
    println!(
        "  {} games in flight per thread; measured for {secs:.1} s after {:.0} s of warm-up (the games are young: a window of their first {:.0} plies on average)",
        summary.in_flight,
        b.warmup,
        progress.moves.load(Ordering::Relaxed) as f64 / (threads * summary.in_flight).max(1) as f64
    );
    println!("  positions (plies)/s   {positions:.1}");
    if finished > 0 {
        let per_game = finished_plies as f64 / finished as f64;
        println!(
            "  games/s               {:.3} (positions/s ÷ {per_game:.0} plies per game; {finished} games ended in the window)",
            positions / per_game
        );
    } else {
        println!("  games/s               no game ended in the window (`junqi selfplay` measures whole games)");
    }
    println!(
        "  net requests/s        {:.0} ({:.1} per position; {:.1}% answered by the cache, {:.1}% merged duplicates)",
        nets.requests as f64 / secs,
        nets.requests as f64 / moves.max(1) as f64,
        100.0 * nets.cache_hit_rate(),
        100.0 * nets.duplicates as f64 / nets.requests.max(1) as f64
    );
    println!(
        "  forward passes/s      {forward:.0} ({:.1} per position), mean batch {:.1}",
        nets.positions as f64 / moves.max(1) as f64,
        nets.mean_batch()
    );
    println!(
        "  net FLOP rate         {:.1} GFLOP/s model ({} of peak), trunk alone {:.1} GFLOP/s ({} of peak)",
        forward * flops / 1e9,
        pct(forward * flops / 1e9, peak),
        forward * trunk / 1e9,
        pct(forward * trunk / 1e9, peak)
    );
    if raw256 > 0.0 {
        println!(
            "  forward passes/s ÷ raw rate at batch 256: {:.0}% (what the search and the plumbing cost)",
            100.0 * forward / raw256
        );
    }
    Ok((positions, forward))
}

/// Random 翻棋 self-play with every sample, written and not: the cost of writing.
fn writing(threads: usize, seed: u64, tmp: &Path) -> Result<()> {
    let games = 3000;
    let config = || -> Result<Config> {
        Ok(Config::new(Rules::preset(Mode::Fanqi), games, ["random", "random"], seed)?
            .with_samples(SamplesPerGame::All)
            .with_shard_games(games / 8))
    };
    let options = RunOptions { threads, ..Default::default() };
    let t = Instant::now();
    let quiet = prepare(config()?, None)?.run(&options)?;
    let without = t.elapsed().as_secs_f64();
    let dir = tmp.join("writing");
    let t = Instant::now();
    let summary = prepare(config()?, Some(&dir))?.run(&RunOptions { threads, ..Default::default() })?;
    let with = t.elapsed().as_secs_f64();
    let stats = junqi_selfplay::dataset_stats(&dir)?;
    let per_sample_us = (with - without) * threads as f64 / summary.samples.max(1) as f64 * 1e6;
    println!("\nwriting samples (random vs random 翻棋, {games} games, every ply sampled, {threads} threads):");
    println!(
        "  {:.2} s written, {:.2} s not: writing costs {:.0}% of self-play time ({} samples, {:.1} bytes/sample on disk, {:.2} µs of a thread per sample)",
        with,
        without,
        100.0 * (with - without) / with,
        quiet.samples,
        stats.samples_bytes as f64 / stats.samples.max(1) as f64,
        per_sample_us
    );
    Ok(())
}

#[cfg(feature = "torch")]
mod torch {
    //! The libtorch parts: the sgemm reference, libtorch's forward pass,
    //! training and the loader.
    use super::{pct, BATCHES};
    use anyhow::Result;
    use junqi_net::{ModelConfig, NetInput};
    use junqi_selfplay::{prepare, Config, RunOptions, SamplesPerGame};
    use junqi_train::bench::{forward_rates, step_rates, training_rates};
    use std::path::Path;

    pub fn sgemm_gflops(threads: i32, n: i64) -> f64 {
        junqi_train::bench::sgemm_gflops(threads as usize, n)
    }

    pub fn forward_table(
        path: &Path,
        device: junqi_train::DeviceChoice,
        threads: i32,
        pool: &[NetInput],
        flops: f64,
        peak: f64,
    ) -> Result<()> {
        println!(
            "libtorch's forward pass ({device:?}, {threads} intra-op threads on a CPU, planes built from the codes):"
        );
        println!("{:>6} {:>12} {:>16} {:>10}", "batch", "positions/s", "GFLOP/s (model)", "of peak");
        for (batch, rate) in forward_rates(path, device, threads as usize, pool, &BATCHES)? {
            println!("{batch:>6} {rate:>12.0} {:>16.1} {:>10}", rate * flops / 1e9, pct(rate * flops / 1e9, peak));
        }
        Ok(())
    }

    pub fn training(
        model: &ModelConfig,
        device: junqi_train::DeviceChoice,
        threads: i32,
        flops: f64,
        peak: f64,
        tmp: &Path,
    ) -> Result<()> {
        let data = tmp.join("train-data");
        let c = Config::new(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 120, ["greedy", "random"], 1)?
            .with_samples(SamplesPerGame::All)
            .with_shard_games(30);
        prepare(c, Some(&data))?.run(&RunOptions { threads: threads as usize, ..Default::default() })?;
        let r = training_rates(model, device, threads as usize, &data)?;
        let gf = |rate: f64| rate * 3.0 * flops / 1e9;
        println!(
            "\ntraining (libtorch, {device:?}, {threads} threads, batch {}, samples of 120 random 翻棋 games):",
            r.batch
        );
        println!(
            "  forward + backward    {:.0} samples/s, {:.1} GFLOP/s (3 × model FLOPs) = {} of peak",
            r.step,
            gf(r.step),
            pct(gf(r.step), peak)
        );
        println!("  the loader alone      {:.0} samples/s (Parquet → positions → planes, masks, targets)", r.loader);
        println!("  both, one after other {:.0} samples/s: the raw step is {:.2}× that", r.both, r.step / r.both);
        // FP32 and bf16 autocast (`precision = "bf16"`), a step of each in
        // turn over the same batches, so a busy machine slows both alike.
        use junqi_train::TrainPrecision::{Bf16, Fp32};
        let rates = step_rates(model, device, threads as usize, &data, &[Fp32, Bf16], 3)?;
        let median = |r: &[f64]| {
            let mut r = r.to_vec();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        let fp32 = median(&rates[0].1);
        for (p, r) in &rates {
            let shown: Vec<String> = r.iter().map(|x| format!("{x:.0}")).collect();
            println!(
                "  step in {p}, 3 rounds   {} samples/s (median {:.0}, {:.2}× fp32's)",
                shown.join(" / "),
                median(r),
                median(r) / fp32
            );
        }
        Ok(())
    }
}
