//! Batched inference: one thread per loaded net owns it and answers the
//! requests of every game in flight, many positions per forward pass.
//!
//! Agents (the `net` bot, the `mcts:eval=net` leaf evaluator) hold a
//! [`NetClient`] and block on [`NetClient::evaluate`]. The server thread
//! takes the first waiting request, then every request that arrives within
//! `max_wait` (up to `max_batch`), runs one forward pass and answers each.
//! Self-play keeps many games in flight by running them on many threads
//! (`--threads`), so the batch grows with the number of games waiting on
//! the net; [`InferenceStats`] records the mean batch size.

use crate::checkpoint::load_net;
use crate::config::DeviceChoice;
use crate::{Result, TrainError};
use junqi_env::{OBS_CHANNELS, OBS_SIZE};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tch::{Kind, Tensor};

/// The net's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities of the requested legal actions, in request order (they sum to 1).
    pub priors: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

impl Evaluation {
    /// Expected score in [-1, 1]: P(win) - P(loss).
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

struct Request {
    obs: Vec<f32>,
    /// Legal action ids in the mover's frame.
    legal: Vec<u16>,
    reply: SyncSender<Evaluation>,
}

/// How the server forms batches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    pub max_batch: usize,
    /// How long the server waits for more requests once it has one.
    pub max_wait: Duration,
}

impl Default for BatchOptions {
    fn default() -> BatchOptions {
        // No waiting: while a batch runs, the next one queues up by itself
        // (waiting 0.3 ms halved self-play speed on 2 cores).
        let wait = std::env::var("JUNQI_BATCH_WAIT_US").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
        BatchOptions { max_batch: 512, max_wait: Duration::from_micros(wait) }
    }
}

/// Counters of one server: forward passes and positions evaluated.
#[derive(Debug, Default)]
pub struct InferenceStats {
    pub batches: AtomicU64,
    pub positions: AtomicU64,
    /// Nanoseconds spent in forward passes (tensor building included).
    pub forward_ns: AtomicU64,
}

impl InferenceStats {
    pub fn mean_batch(&self) -> f64 {
        let b = self.batches.load(Ordering::Relaxed);
        if b == 0 {
            0.0
        } else {
            self.positions.load(Ordering::Relaxed) as f64 / b as f64
        }
    }
}

/// A handle on a net's server thread; cheap to clone, `Send`.
#[derive(Clone)]
pub struct NetClient {
    tx: Sender<Request>,
    stats: Arc<InferenceStats>,
}

impl NetClient {
    /// Load the net at `path` (an exported net or a checkpoint) on `device`
    /// and start its server thread. The thread ends when every client is gone.
    pub fn start(path: &Path, device: DeviceChoice, options: BatchOptions) -> Result<NetClient> {
        let device = device.resolve()?;
        // Load here so a bad file is an error for the caller, not a dead thread.
        let (vs, net, info) = load_net(path, device)?;
        if info.model.in_channels != OBS_CHANNELS {
            return Err(TrainError::Checkpoint {
                path: path.to_path_buf(),
                message: format!(
                    "the net takes {} observation planes, this build encodes {}",
                    info.model.in_channels, OBS_CHANNELS
                ),
            });
        }
        let (tx, rx) = mpsc::channel::<Request>();
        let stats = Arc::new(InferenceStats::default());
        let thread_stats = Arc::clone(&stats);
        std::thread::Builder::new()
            .name("junqi-net".into())
            .spawn(move || {
                let _vs = vs; // keeps the variables alive with the net
                if device == tch::Device::Cpu {
                    // Small batches of a small net: one intra-op thread is as
                    // fast as two on 2 cores and leaves the other to the games.
                    tch::set_num_threads(1);
                }
                serve(&net, device, &rx, options, &thread_stats)
            })
            .map_err(|e| TrainError::Config(format!("cannot start the inference thread: {e}")))?;
        Ok(NetClient { tx, stats })
    }

    /// Evaluate one position: `obs` is the mover's observation (`OBS_SIZE`
    /// floats), `legal` its legal action ids in the mover's frame.
    pub fn evaluate(&self, obs: Vec<f32>, legal: Vec<u16>) -> Evaluation {
        assert_eq!(obs.len(), OBS_SIZE, "an observation is OBS_SIZE floats");
        let (reply, answer) = mpsc::sync_channel(1);
        self.tx.send(Request { obs, legal, reply }).expect("the inference thread is running");
        answer.recv().expect("the inference thread answers every request")
    }

    pub fn stats(&self) -> &Arc<InferenceStats> {
        &self.stats
    }
}

fn serve(net: &crate::Net, device: tch::Device, rx: &Receiver<Request>, options: BatchOptions, stats: &InferenceStats) {
    let mut batch: Vec<Request> = Vec::with_capacity(options.max_batch);
    let mut obs: Vec<f32> = Vec::new();
    let mut legal: Vec<u8> = Vec::new();
    loop {
        match rx.recv() {
            Ok(r) => batch.push(r),
            Err(_) => return,
        }
        let deadline = Instant::now() + options.max_wait;
        while batch.len() < options.max_batch {
            match rx.try_recv() {
                Ok(r) => batch.push(r),
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    let now = Instant::now();
                    if now >= deadline || options.max_wait.is_zero() {
                        break;
                    }
                    match rx.recv_timeout(deadline - now) {
                        Ok(r) => batch.push(r),
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                    }
                }
            }
        }
        let started = Instant::now();
        let b = batch.len();
        obs.clear();
        legal.clear();
        legal.resize(b * crate::ACTIONS as usize, 0);
        for (i, r) in batch.iter().enumerate() {
            obs.extend_from_slice(&r.obs);
            for &a in &r.legal {
                legal[i * crate::ACTIONS as usize + a as usize] = 1;
            }
        }
        let obs_t = Tensor::from_slice(&obs).reshape([b as i64, -1]).to_device(device);
        let legal_t = Tensor::from_slice(&legal).reshape([b as i64, crate::ACTIONS]).to_device(device);
        let (policy, wdl) = net.predict(&obs_t, &legal_t);
        let policy: Vec<f32> = Vec::try_from(policy.to_kind(Kind::Float).to_device(tch::Device::Cpu).reshape([-1]))
            .expect("policy tensor to vec");
        let wdl: Vec<f32> = Vec::try_from(wdl.to_kind(Kind::Float).to_device(tch::Device::Cpu).reshape([-1]))
            .expect("wdl tensor to vec");
        stats.forward_ns.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats.positions.fetch_add(b as u64, Ordering::Relaxed);
        for (i, r) in batch.drain(..).enumerate() {
            let row = &policy[i * crate::ACTIONS as usize..(i + 1) * crate::ACTIONS as usize];
            let priors = r.legal.iter().map(|&a| row[a as usize]).collect();
            let wdl = [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]];
            // A client that gave up (its game was dropped) is not an error.
            let _ = r.reply.send(Evaluation { priors, wdl });
        }
    }
}

/// Nets already loaded, by file: every bot on the same file shares one
/// server thread, so their positions share batches.
static SERVERS: Mutex<Option<HashMap<PathBuf, NetClient>>> = Mutex::new(None);

/// The device and batching every net loaded through [`shared_client`] uses.
static SETTINGS: Mutex<Option<(DeviceChoice, BatchOptions)>> = Mutex::new(None);

/// Set the device (and batching) for nets loaded from now on (`--device`).
pub fn set_inference_device(device: DeviceChoice, options: BatchOptions) {
    *SETTINGS.lock().unwrap_or_else(|e| e.into_inner()) = Some((device, options));
}

/// The shared client of the net at `path`, loading it on first use.
pub fn shared_client(path: &Path) -> Result<NetClient> {
    let key = std::fs::canonicalize(path).map_err(TrainError::io(path))?;
    let mut servers = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = servers.get_or_insert_with(HashMap::new);
    if let Some(client) = servers.get(&key) {
        return Ok(client.clone());
    }
    let (device, options) = SETTINGS.lock().unwrap_or_else(|e| e.into_inner()).unwrap_or_default();
    let client = NetClient::start(&key, device, options)?;
    servers.insert(key, client.clone());
    Ok(client)
}

/// Forget the loaded nets (their threads end once no bot uses them), e.g.
/// between generations of the training loop.
pub fn release_shared_clients() {
    *SERVERS.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Inference counters summed over the nets loaded now.
pub fn shared_stats() -> (u64, u64, f64) {
    let servers = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let mut total = (0, 0, 0.0);
    for client in servers.iter().flat_map(|s| s.values()) {
        let s = client.stats();
        total.0 += s.batches.load(Ordering::Relaxed);
        total.1 += s.positions.load(Ordering::Relaxed);
        total.2 += s.forward_ns.load(Ordering::Relaxed) as f64 * 1e-9;
    }
    total
}
