//! The inference service: one per net per process. Every game in flight,
//! on every thread, sends it the positions its search needs evaluated; it
//! answers from the evaluation cache where it can and runs the rest through
//! the net in batches.
//!
//! ## How a position travels
//!
//! 1. [`InferenceService::submit`] looks the position up in the cache. A hit
//!    is answered at once.
//! 2. A miss joins this thread's open *group* of requests for the service
//!    (the same position twice in one group is computed once). Submitting
//!    never blocks, so one thread can start the searches of hundreds of
//!    games and collect all their leaves in one group.
//! 3. [`Ticket::wait`] sends the group to the service's queue if it has not
//!    gone yet (so a thread's requests leave together, as one batch) and
//!    blocks until its own answer is there.
//! 4. The service's executor threads take up to `max_batch` queued positions
//!    at a time (from one or several groups, of one or several threads), run
//!    them through the [`Backend`], store the answers in the cache and wake
//!    the waiting threads.
//!
//! A game that waits on one position at a time (a search without virtual
//! loss) still fills big batches because one thread keeps many games in
//! flight (`junqi_selfplay::RunOptions::in_flight`). With the CPU backend
//! a position's answer does not depend on its batch, so games are the same
//! whatever the batching, the thread count or the cache size.
//!
//! ## Both games
//!
//! The service is generic over what it is asked (a [`Query`]): a
//! two-player net's [`NetInput`] (the default) or a four-player net's
//! [`SiguoInput`](crate::cpu::siguo::SiguoInput). The CPU engine of either
//! game is a [`CpuBackend`] ([`CpuEngine`]); libtorch serves two-player nets only.

use crate::cache::EvalCache;
use crate::cpu::{CpuNet, Scratch};
use crate::{Evaluation, NetError, NetInput};
use std::any::Any;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

/// What a service is asked about one position, and the evaluation cache's
/// whole key: equal queries get the same answer.
pub trait Query: Clone + PartialEq + Send + Sync + 'static {
    /// A 64-bit hash of the whole query (it picks the cache slot and finds
    /// duplicates in a group; equality decides).
    fn hash64(&self) -> u64;
    /// The query a net that does not read the history planes is asked (a
    /// two-player net made before them); unchanged by default.
    fn without_history(self) -> Self {
        self
    }
}

impl Query for NetInput {
    fn hash64(&self) -> u64 {
        NetInput::hash64(self)
    }
    fn without_history(mut self) -> Self {
        self.code = self.code.without_history();
        self
    }
}

/// Runs forward passes of queries `Q`: the CPU engine here, libtorch (e.g.
/// CUDA) from `junqi-train`. Each executor thread owns one.
pub trait Backend<Q = NetInput>: Send {
    /// Evaluate `inputs` in order into `out` (cleared by the caller).
    fn evaluate(&mut self, inputs: &[&Q], out: &mut Vec<Evaluation>);
    /// A short description for reports, e.g. `cpu (avx2)`.
    fn describe(&self) -> String;
}

/// Makes one [`Backend`] per executor thread (called on that thread).
pub type BackendFactory<Q = NetInput> = Arc<dyn Fn() -> Result<Box<dyn Backend<Q>>, NetError> + Send + Sync>;

/// A CPU forward pass of one game's nets: [`CpuNet`] (two-player) or
/// [`SiguoCpuNet`](crate::SiguoCpuNet) (four-player).
pub trait CpuEngine: Send + Sync + 'static {
    /// What it answers.
    type Query: Query;
    /// Buffers of one evaluating thread.
    type Scratch: Send;
    fn scratch(&self) -> Self::Scratch;
    /// The answer to `query` (the belief too when the query asks for it).
    fn answer(&self, query: &Self::Query, scratch: &mut Self::Scratch) -> Evaluation;
    /// The arithmetic in use, e.g. `avx2+fma`.
    fn describe(&self) -> String;
}

impl CpuEngine for CpuNet {
    type Query = NetInput;
    type Scratch = Scratch;
    fn scratch(&self) -> Scratch {
        CpuNet::scratch(self)
    }
    fn answer(&self, i: &NetInput, scratch: &mut Scratch) -> Evaluation {
        let mut e = self.evaluate(&i.code, &i.legal, scratch);
        if i.belief {
            e.belief = self.belief_after_evaluate(scratch);
        }
        e
    }
    fn describe(&self) -> String {
        CpuNet::describe(self).to_string()
    }
}

/// The CPU engine as a backend: one net shared by all executors.
pub struct CpuBackend<N: CpuEngine = CpuNet> {
    net: Arc<N>,
    scratch: N::Scratch,
}

impl<N: CpuEngine> CpuBackend<N> {
    pub fn new(net: Arc<N>) -> CpuBackend<N> {
        let scratch = net.scratch();
        CpuBackend { net, scratch }
    }

    /// A factory of CPU backends over one shared net.
    pub fn factory(net: Arc<N>) -> BackendFactory<N::Query> {
        Arc::new(move || Ok(Box::new(CpuBackend::new(Arc::clone(&net))) as Box<dyn Backend<N::Query>>))
    }
}

impl<N: CpuEngine> Backend<N::Query> for CpuBackend<N> {
    fn evaluate(&mut self, inputs: &[&N::Query], out: &mut Vec<Evaluation>) {
        out.extend(inputs.iter().map(|i| self.net.answer(i, &mut self.scratch)));
    }
    fn describe(&self) -> String {
        format!("cpu ({})", self.net.describe())
    }
}

/// How the service batches and caches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceOptions {
    /// Executor threads (forward passes in parallel); 0 = one per core.
    pub executors: usize,
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Evaluation cache entries (0 = no cache).
    pub cache_entries: usize,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        ServiceOptions { executors: 0, max_batch: 256, cache_entries: 200_000 }
    }
}

impl ServiceOptions {
    pub fn check(&self) -> Result<(), NetError> {
        if self.max_batch == 0 || self.max_batch > 1 << 16 {
            return Err(NetError::Config(format!("max_batch must be in 1..=65536, not {}", self.max_batch)));
        }
        if self.executors > 1024 {
            return Err(NetError::Config(format!("at most 1024 executors, not {}", self.executors)));
        }
        if self.cache_entries > 1 << 28 {
            return Err(NetError::Config(format!("at most 2^28 cache entries, not {}", self.cache_entries)));
        }
        Ok(())
    }
}

/// Counters of one service.
#[derive(Debug, Default)]
pub struct ServiceStats {
    /// Positions asked for (hits, duplicates and forward passes together).
    pub requests: AtomicU64,
    /// Answered from the cache.
    pub cache_hits: AtomicU64,
    /// Answered by another request for the same position in the same group.
    pub duplicates: AtomicU64,
    /// Forward passes run, and the positions in them.
    pub batches: AtomicU64,
    pub positions: AtomicU64,
    /// Nanoseconds executors spent in the backend.
    pub forward_ns: AtomicU64,
}

/// A copy of [`ServiceStats`] at one moment (differences of two give a period).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StatsSnapshot {
    pub requests: u64,
    pub cache_hits: u64,
    pub duplicates: u64,
    pub batches: u64,
    pub positions: u64,
    pub forward_secs: f64,
}

impl StatsSnapshot {
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.batches.max(1) as f64
    }
    pub fn cache_hit_rate(&self) -> f64 {
        self.cache_hits as f64 / self.requests.max(1) as f64
    }
    /// `self - earlier`, counter by counter.
    pub fn since(&self, earlier: &StatsSnapshot) -> StatsSnapshot {
        StatsSnapshot {
            requests: self.requests - earlier.requests,
            cache_hits: self.cache_hits - earlier.cache_hits,
            duplicates: self.duplicates - earlier.duplicates,
            batches: self.batches - earlier.batches,
            positions: self.positions - earlier.positions,
            forward_secs: self.forward_secs - earlier.forward_secs,
        }
    }
    /// Sum of two services' counters.
    pub fn plus(&self, o: &StatsSnapshot) -> StatsSnapshot {
        StatsSnapshot {
            requests: self.requests + o.requests,
            cache_hits: self.cache_hits + o.cache_hits,
            duplicates: self.duplicates + o.duplicates,
            batches: self.batches + o.batches,
            positions: self.positions + o.positions,
            forward_secs: self.forward_secs + o.forward_secs,
        }
    }
}

impl ServiceStats {
    pub fn snapshot(&self) -> StatsSnapshot {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        StatsSnapshot {
            requests: l(&self.requests),
            cache_hits: l(&self.cache_hits),
            duplicates: l(&self.duplicates),
            batches: l(&self.batches),
            positions: l(&self.positions),
            forward_secs: l(&self.forward_ns) as f64 * 1e-9,
        }
    }
}

/// A thread's requests that leave for the queue together.
struct Group<Q> {
    /// The requests while the group is open; taken when it is sent.
    open: Mutex<Vec<Q>>,
    /// The requests once sent (read by the executors).
    sent: OnceLock<Vec<Q>>,
    answers: Mutex<Vec<Option<Evaluation>>>,
    answered: Condvar,
}

impl<Q> Group<Q> {
    fn new() -> Arc<Group<Q>> {
        Arc::new(Group {
            open: Mutex::new(Vec::new()),
            sent: OnceLock::new(),
            answers: Mutex::new(Vec::new()),
            answered: Condvar::new(),
        })
    }
}

/// Queued work: positions `range` of a sent group.
struct Work<Q> {
    group: Arc<Group<Q>>,
    range: std::ops::Range<usize>,
}

struct Inner<Q> {
    id: u64,
    queue: Mutex<VecDeque<Work<Q>>>,
    work_ready: Condvar,
    shutdown: AtomicBool,
    cache: Option<EvalCache<Q>>,
    stats: ServiceStats,
    max_batch: usize,
    describe: Mutex<String>,
    /// Set when a backend panicked: waiters then fail with this message
    /// instead of waiting for ever.
    failed: Mutex<Option<String>>,
    /// Whether the net reads the history planes; a net made before them
    /// gets every code without its history, so positions that differ only
    /// there share one cache entry and one evaluation.
    reads_history: AtomicBool,
}

/// Ends the executors when the last handle of the service is dropped.
struct Owner<Q>(Arc<Inner<Q>>);

impl<Q> Drop for Owner<Q> {
    fn drop(&mut self) {
        self.0.shutdown.store(true, Ordering::SeqCst);
        let _q = self.0.queue.lock().unwrap_or_else(|e| e.into_inner());
        self.0.work_ready.notify_all();
    }
}

/// A handle on one net's service, asked queries `Q` (a two-player
/// [`NetInput`] unless said otherwise); cheap to clone, `Send + Sync`.
pub struct InferenceService<Q = NetInput> {
    owner: Arc<Owner<Q>>,
}

impl<Q> Clone for InferenceService<Q> {
    fn clone(&self) -> Self {
        InferenceService { owner: Arc::clone(&self.owner) }
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A thread's open group of one service (a `Group` of that service's
/// queries), and where each position (by hash) already is in it (to merge
/// duplicates).
type OpenGroup = (Arc<dyn Any + Send + Sync>, HashMap<u64, usize>);

thread_local! {
    /// Per service (by id): this thread's open group.
    static OPEN: RefCell<HashMap<u64, OpenGroup>> = RefCell::new(HashMap::new());
}

impl InferenceService {
    /// A service of the CPU engine over `net`.
    pub fn cpu(net: CpuNet, options: &ServiceOptions) -> Result<InferenceService, NetError> {
        let reads_history = net.model().reads_history();
        let service = InferenceService::start(CpuBackend::factory(Arc::new(net)), options)?;
        Ok(if reads_history { service } else { service.ignoring_history() })
    }
}

impl<Q: Query> InferenceService<Q> {
    /// Start a service whose executors each make a backend with `factory`.
    /// Fails when the first backend cannot be made.
    pub fn start(factory: BackendFactory<Q>, options: &ServiceOptions) -> Result<InferenceService<Q>, NetError> {
        options.check()?;
        let executors = match options.executors {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let inner = Arc::new(Inner {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            queue: Mutex::new(VecDeque::new()),
            work_ready: Condvar::new(),
            shutdown: AtomicBool::new(false),
            cache: (options.cache_entries > 0).then(|| EvalCache::new(options.cache_entries)),
            stats: ServiceStats::default(),
            max_batch: options.max_batch,
            describe: Mutex::new(String::new()),
            failed: Mutex::new(None),
            reads_history: AtomicBool::new(true),
        });
        let service = InferenceService { owner: Arc::new(Owner(Arc::clone(&inner))) };
        for i in 0..executors {
            let (shared, factory) = (Arc::clone(&inner), Arc::clone(&factory));
            let (ready_tx, ready_rx) = std::sync::mpsc::channel();
            std::thread::Builder::new()
                .name(format!("junqi-net-{i}"))
                .spawn(move || match factory() {
                    Ok(backend) => {
                        let _ = ready_tx.send(Ok(backend.describe()));
                        execute(&shared, backend)
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                })
                .map_err(|e| NetError::Config(format!("cannot start an inference thread: {e}")))?;
            let describe =
                ready_rx.recv().map_err(|_| NetError::Config("an inference thread died while starting".into()))??;
            *inner.describe.lock().unwrap_or_else(|e| e.into_inner()) = format!("{describe}, {executors} executor(s)");
        }
        Ok(service)
    }

    fn inner(&self) -> &Arc<Inner<Q>> {
        &self.owner.0
    }

    /// What runs the forward passes, e.g. `cpu (avx2+fma), 2 executor(s)`.
    pub fn describe(&self) -> String {
        self.inner().describe.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn stats(&self) -> StatsSnapshot {
        self.inner().stats.snapshot()
    }

    /// For a net made before the history planes (it reads the first 100):
    /// drop the history from every code before the cache and the batch.
    pub fn ignoring_history(self) -> InferenceService<Q> {
        self.inner().reads_history.store(false, Ordering::Relaxed);
        self
    }

    /// Whether the net reads the history planes ([`InferenceService::ignoring_history`]).
    pub fn reads_history(&self) -> bool {
        self.inner().reads_history.load(Ordering::Relaxed)
    }

    /// Ask for `input`'s answer without blocking (see the module docs).
    pub fn submit(&self, mut input: Q) -> Ticket<Q> {
        let inner = self.inner();
        if !inner.reads_history.load(Ordering::Relaxed) {
            input = input.without_history();
        }
        inner.stats.requests.fetch_add(1, Ordering::Relaxed);
        if let Some(e) = inner.cache.as_ref().and_then(|c| c.get(&input)) {
            inner.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ticket(TicketState::Ready(e));
        }
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            let (any, index) = open
                .entry(inner.id)
                .or_insert_with(|| (Group::<Q>::new() as Arc<dyn Any + Send + Sync>, HashMap::new()));
            let group = Arc::clone(any).downcast::<Group<Q>>().expect("a service's groups hold its queries");
            let mut requests = group.open.lock().unwrap_or_else(|e| e.into_inner());
            let hash = input.hash64();
            if let Some(&i) = index.get(&hash) {
                if requests[i] == input {
                    inner.stats.duplicates.fetch_add(1, Ordering::Relaxed);
                    return Ticket(TicketState::Waiting { service: self.clone(), group: Arc::clone(&group), index: i });
                }
            }
            let i = requests.len();
            index.insert(hash, i);
            requests.push(input);
            drop(requests);
            Ticket(TicketState::Waiting { service: self.clone(), group, index: i })
        })
    }

    /// Evaluate one position and wait for the answer.
    pub fn evaluate(&self, input: Q) -> Evaluation {
        self.submit(input).wait()
    }

    /// Send `group` to the queue unless it has gone already.
    fn send(&self, group: &Arc<Group<Q>>) {
        let inner = self.inner();
        if group.sent.get().is_some() {
            return;
        }
        // Close this thread's open group if it is this one, so the next
        // submit starts a new group.
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            if open.get(&inner.id).is_some_and(|(g, _)| std::ptr::addr_eq(Arc::as_ptr(g), Arc::as_ptr(group))) {
                open.remove(&inner.id);
            }
        });
        let requests = std::mem::take(&mut *group.open.lock().unwrap_or_else(|e| e.into_inner()));
        let n = requests.len();
        if group.sent.set(requests).is_err() {
            return; // sent by another thread meanwhile
        }
        group.answers.lock().unwrap_or_else(|e| e.into_inner()).resize(n, None);
        let mut queue = inner.queue.lock().unwrap_or_else(|e| e.into_inner());
        let mut start = 0;
        while start < n {
            let end = (start + inner.max_batch).min(n);
            queue.push_back(Work { group: Arc::clone(group), range: start..end });
            start = end;
        }
        drop(queue);
        inner.work_ready.notify_all();
    }
}

enum TicketState<Q> {
    Ready(Evaluation),
    Waiting { service: InferenceService<Q>, group: Arc<Group<Q>>, index: usize },
    Taken,
}

/// A submitted position's answer, now or later.
pub struct Ticket<Q = NetInput>(TicketState<Q>);

impl<Q: Query> Ticket<Q> {
    /// The answer, if it is there without waiting.
    pub fn try_take(&mut self) -> Option<Evaluation> {
        let ready = match &self.0 {
            TicketState::Ready(_) => true,
            TicketState::Waiting { group, index, .. } => {
                group.answers.lock().unwrap_or_else(|e| e.into_inner()).get(*index).is_some_and(Option::is_some)
            }
            TicketState::Taken => false,
        };
        ready.then(|| self.take_now())
    }

    fn take_now(&mut self) -> Evaluation {
        match std::mem::replace(&mut self.0, TicketState::Taken) {
            TicketState::Ready(e) => e,
            TicketState::Waiting { group, index, .. } => {
                group.answers.lock().unwrap_or_else(|e| e.into_inner())[index].clone().expect("answered")
            }
            TicketState::Taken => panic!("a ticket's answer is taken once"),
        }
    }

    /// Block until the answer is there (sending this thread's group first
    /// if it has not gone), without taking it.
    pub fn block(&self) {
        let TicketState::Waiting { service, group, index } = &self.0 else { return };
        service.send(group);
        let mut answers = group.answers.lock().unwrap_or_else(|e| e.into_inner());
        while answers.get(*index).is_none_or(Option::is_none) {
            if let Some(why) = service.inner().failed.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                panic!("the inference service failed: {why}");
            }
            answers = group.answered.wait(answers).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Block until the answer is there and take it.
    pub fn wait(mut self) -> Evaluation {
        self.block();
        self.take_now()
    }
}

/// An executor: take up to `max_batch` queued positions, evaluate, answer.
fn execute<Q: Query>(inner: &Inner<Q>, mut backend: Box<dyn Backend<Q>>) {
    let mut taken: Vec<Work<Q>> = Vec::new();
    let mut out: Vec<Evaluation> = Vec::new();
    loop {
        {
            let mut queue = inner.queue.lock().unwrap_or_else(|e| e.into_inner());
            while queue.is_empty() {
                if inner.shutdown.load(Ordering::SeqCst) {
                    return;
                }
                queue = inner.work_ready.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
            let mut room = inner.max_batch;
            while room > 0 {
                let Some(mut w) = queue.pop_front() else { break };
                if w.range.len() > room {
                    // Take the front part; the rest stays queued.
                    let rest = Work { group: Arc::clone(&w.group), range: w.range.start + room..w.range.end };
                    w.range.end = w.range.start + room;
                    queue.push_front(rest);
                }
                room -= w.range.len();
                taken.push(w);
            }
        }
        let inputs: Vec<&Q> = taken
            .iter()
            .flat_map(|w| w.group.sent.get().expect("queued groups are sent")[w.range.clone()].iter())
            .collect();
        let started = Instant::now();
        out.clear();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| backend.evaluate(&inputs, &mut out)));
        let n = inputs.len();
        if run.is_err() || out.len() != n {
            drop(inputs);
            let why = match run {
                Err(p) => p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into()),
                Ok(()) => format!("{} answers for {n} positions", out.len()),
            };
            *inner.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
            for w in taken.drain(..) {
                let _answers = w.group.answers.lock().unwrap_or_else(|e| e.into_inner());
                w.group.answered.notify_all();
            }
            continue;
        }
        let s = &inner.stats;
        s.forward_ns.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        s.batches.fetch_add(1, Ordering::Relaxed);
        s.positions.fetch_add(inputs.len() as u64, Ordering::Relaxed);
        if let Some(cache) = &inner.cache {
            for (input, e) in inputs.iter().zip(&out) {
                cache.insert(input, e);
            }
        }
        drop(inputs);
        let mut results = out.drain(..);
        for w in taken.drain(..) {
            let mut answers = w.group.answers.lock().unwrap_or_else(|e| e.into_inner());
            for i in w.range {
                answers[i] = results.next();
            }
            drop(answers);
            w.group.answered.notify_all();
        }
    }
}
