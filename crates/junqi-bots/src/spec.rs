//! Bot specs: `name` or `name:key=value,key=value`.
//!
//! A value holding a comma (a path, or a nested spec such as
//! `eval="net:path=\"a,b.safetensors\""`) is written in double quotes; inside
//! quotes a backslash takes the next character literally. Unquoted values
//! are taken as they are, backslashes included.

use crate::mcts::{CheatMcts, Mcts, MctsConfig};
use crate::{Agent, Greedy, Heuristic, Player, RandomBot};
use std::fmt::Write as _;

/// The bots [`build`] knows.
pub const BOT_NAMES: [&str; 5] = ["random", "greedy", "heuristic", "mcts", "cheat-mcts"];

/// Bots whose code lives outside this crate (e.g. the network bots of
/// `junqi-train`, which need libtorch): a name and the factory that builds them.
pub type BotFactory = fn(&BotSpec) -> Result<Player, BotSpecError>;

static EXTERNAL: std::sync::RwLock<Vec<(&'static str, BotFactory)>> = std::sync::RwLock::new(Vec::new());

/// Bots that [`build`] knows only when their crate is linked in.
const EXTERNAL_NAMES: [&str; 1] = ["net"];

/// Make [`build`] build `name` specs, and `mcts:…,eval=name:…` specs, with
/// `factory` (it receives the whole parsed spec, `net:…` or `mcts:…`).
/// Registering a name again replaces its factory.
pub fn register_bot(name: &'static str, factory: BotFactory) {
    let mut table = EXTERNAL.write().unwrap_or_else(|e| e.into_inner());
    table.retain(|(n, _)| *n != name);
    table.push((name, factory));
}

/// Every bot a spec may name, as help and errors list them: the built-in
/// ones, then the registered ones in their spec form (`net:NAME|FILE`,
/// `engine:cmd=PROGRAM`).
pub fn known_bots() -> String {
    let table = EXTERNAL.read().unwrap_or_else(|e| e.into_inner());
    let registered = table.iter().map(|(name, _)| match *name {
        "net" => "net:NAME|FILE",
        ENGINE => "engine:cmd=PROGRAM",
        other => other,
    });
    BOT_NAMES.iter().copied().chain(registered).collect::<Vec<_>>().join(", ")
}

fn external(name: &str) -> Result<BotFactory, BotSpecError> {
    let table = EXTERNAL.read().unwrap_or_else(|e| e.into_inner());
    match table.iter().find(|(n, _)| *n == name) {
        Some((_, f)) => Ok(*f),
        None if EXTERNAL_NAMES.contains(&name) => Err(BotSpecError::Unavailable { name: name.to_string() }),
        None => Err(BotSpecError::UnknownBot { name: name.to_string() }),
    }
}

/// The bot that runs another program (registered by `junqi-engine`): a whole
/// player, never a search's leaf evaluator.
const ENGINE: &str = "engine";

/// How deep [`BotSpec::starts_programs`] looks into specs held in parameters.
const MAX_NESTING: usize = 8;

/// The parameter a bare value stands for (`mcts:800` = `mcts:sims=800`).
fn positional_key(bot: &str) -> Option<&'static str> {
    match bot {
        "mcts" | "cheat-mcts" => Some("sims"),
        "net" => Some("path"),
        _ => None,
    }
}

/// A parsed spec: the bot's name and its parameters in the order given.
/// Two specs are equal when they print the same.
#[derive(Clone, Debug)]
pub struct BotSpec {
    pub name: String,
    pub params: Vec<(String, String)>,
    /// The first parameter was written bare (`mcts:800`), and prints so:
    /// a spec keeps the text it was given, which names the bot in reports
    /// and directories.
    bare_first: bool,
}

impl PartialEq for BotSpec {
    fn eq(&self, other: &BotSpec) -> bool {
        self.name == other.name && self.params == other.params && self.bare_first() == other.bare_first()
    }
}

impl Eq for BotSpec {}

impl std::hash::Hash for BotSpec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.name, &self.params, self.bare_first()).hash(state);
    }
}

/// `name`, or `name:key=value,key=value` with the parameters in their order:
/// the text [`BotSpec::parse`] reads back (a bare first value stays bare).
impl std::fmt::Display for BotSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            f.write_char(if i == 0 { ':' } else { ',' })?;
            if !(i == 0 && self.bare_first()) {
                write!(f, "{k}=")?;
            }
            write_value(f, v)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for BotSpec {
    type Err = BotSpecError;
    fn from_str(text: &str) -> Result<BotSpec, BotSpecError> {
        BotSpec::parse(text)
    }
}

/// A spec is stored as its text (`mcts:sims=800`), checked when read.
impl serde::Serialize for BotSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for BotSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BotSpec, D::Error> {
        let text = String::deserialize(deserializer)?;
        BotSpec::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A bot spec given either as text (parsed here) or already parsed, so that
/// an API can take `"mcts:800"` in a test and a [`BotSpec`] from the CLI.
pub trait IntoBotSpec {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError>;
}

impl IntoBotSpec for BotSpec {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError> {
        Ok(self)
    }
}

impl IntoBotSpec for &BotSpec {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError> {
        Ok(self.clone())
    }
}

impl IntoBotSpec for &str {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError> {
        BotSpec::parse(self)
    }
}

impl IntoBotSpec for &String {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError> {
        BotSpec::parse(self)
    }
}

impl IntoBotSpec for String {
    fn into_bot_spec(self) -> Result<BotSpec, BotSpecError> {
        BotSpec::parse(&self)
    }
}

/// Why a bot spec was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotSpecError {
    #[error("empty bot spec; bots are: {}", known_bots())]
    Empty,
    #[error("unknown bot `{name}`; bots are: {}", known_bots())]
    UnknownBot { name: String },
    #[error("bot `{name}` needs a network build: this `junqi` was built without the `torch` feature")]
    Unavailable { name: String },
    #[error("bot spec `{spec}`: parameters must be key=value, got `{part}`")]
    Syntax { spec: String, part: String },
    #[error("bot `{bot}` has no parameter `{key}`{}", if known.is_empty() { String::from(" (it takes none)") } else { format!("; parameters are: {known}") })]
    UnknownParam { bot: String, key: String, known: String },
    #[error("bot `{bot}`: parameter `{key}` given twice")]
    Duplicate { bot: String, key: String },
    #[error("bot `{bot}`: bad value `{value}` for `{key}`: {message}")]
    BadValue { bot: String, key: String, value: String, message: String },
}

impl BotSpec {
    /// Parse `name` or `name:key=value,key=value` (spaces around parts are
    /// ignored). A bot with a main parameter also takes its value bare as the
    /// first part: `mcts:800` is `mcts:sims=800`.
    pub fn parse(spec: &str) -> Result<BotSpec, BotSpecError> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec, None),
        };
        if name.is_empty() {
            return Err(BotSpecError::Empty);
        }
        let (mut params, mut bare_first): (Vec<(String, String)>, bool) = (Vec::new(), false);
        let parts = match rest {
            Some(r) => split_outside_quotes(r)
                .map_err(|part| BotSpecError::Syntax { spec: spec.to_string(), part: part.to_string() })?,
            None => Vec::new(),
        };
        for (i, part) in parts.into_iter().enumerate() {
            let syntax = || BotSpecError::Syntax { spec: spec.to_string(), part: part.trim().to_string() };
            // A key never holds a quote: `=` inside a quoted positional value is not a key's.
            let key_value = part.split_once('=').filter(|(k, _)| !k.contains('"'));
            let (k, v) = match (key_value, positional_key(name)) {
                (Some(kv), _) => kv,
                (None, Some(key)) if i == 0 && !part.trim().is_empty() => {
                    bare_first = true;
                    (key, part)
                }
                (None, _) => return Err(syntax()),
            };
            let k = k.trim();
            let v = unquote(v.trim()).ok_or_else(syntax)?;
            if k.is_empty() || v.is_empty() {
                return Err(syntax());
            }
            if params.iter().any(|(p, _)| p == k) {
                return Err(BotSpecError::Duplicate { bot: name.to_string(), key: k.to_string() });
            }
            params.push((k.to_string(), v));
        }
        Ok(BotSpec { name: name.to_string(), params, bare_first })
    }

    /// A spec of bot `name` without parameters; add them with [`BotSpec::with`].
    pub fn new(name: &str) -> BotSpec {
        BotSpec { name: name.to_string(), params: Vec::new(), bare_first: false }
    }

    /// This spec with `key=value` added (or replaced), e.g.
    /// `BotSpec::new("mcts").with("sims", 800).with("eval", BotSpec::new("net").with("path", file.display()))`:
    /// any value prints as it parses back, commas and quotes included.
    pub fn with(mut self, key: &str, value: impl std::fmt::Display) -> BotSpec {
        let value = value.to_string();
        match self.params.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.params.push((key.to_string(), value)),
        }
        self
    }

    /// Whether the first value prints bare: written so, still the bot's main
    /// parameter, and not mistaken for `key=value` when read back.
    fn bare_first(&self) -> bool {
        self.bare_first
            && self
                .params
                .first()
                .is_some_and(|(k, v)| Some(k.as_str()) == positional_key(&self.name) && !v.contains('='))
    }

    /// The spec the bot names itself by ([`Player::name`]): defaults
    /// written out or dropped as the bot does (`mcts:800` →
    /// `mcts:sims=800`, `greedy:epsilon=0` → `greedy`). Builds the bot once,
    /// which also checks every parameter; configs store this form.
    pub fn canonical(&self) -> Result<BotSpec, BotSpecError> {
        BotSpec::parse(&build(self)?.name())
    }

    /// Whether the bot this spec builds reads hidden information, known from
    /// its name without building it (a search bot allocates its tree, a net
    /// bot loads its file). Only `cheat-mcts` does; the registered bots
    /// (`net`, `engine`) are fair.
    pub fn cheats(&self) -> bool {
        self.name == "cheat-mcts"
    }

    /// Whether building this spec may start a program on this machine: it
    /// names the `engine` bot, itself or in a parameter holding a spec (a
    /// search's `eval=…`). Decided on the parsed names, so spaces or quotes
    /// in the text cannot hide one (`junqi serve` refuses these unless told
    /// to offer them).
    /// Specs nested deeper than [`MAX_NESTING`] count as starting one (no
    /// bot nests so deep; the text could nest for ever).
    pub fn starts_programs(&self) -> bool {
        fn nested(spec: &BotSpec, depth: usize) -> bool {
            spec.name == ENGINE
                || spec.params.iter().any(|(_, v)| match BotSpec::parse(v) {
                    Ok(inner) => depth >= MAX_NESTING || nested(&inner, depth + 1),
                    // Not a spec as it stands, but named as one: counted (a guard errs on the safe side).
                    Err(_) => v.split(':').next().is_some_and(|name| name.trim() == ENGINE),
                })
        }
        nested(self, 0)
    }

    pub fn check_keys(&self, known: &[&str]) -> Result<(), BotSpecError> {
        for (k, _) in &self.params {
            if !known.contains(&k.as_str()) {
                return Err(BotSpecError::UnknownParam {
                    bot: self.name.clone(),
                    key: k.clone(),
                    known: known.join(", "),
                });
            }
        }
        Ok(())
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn bad(&self, key: &str, message: &str) -> BotSpecError {
        BotSpecError::BadValue {
            bot: self.name.clone(),
            key: key.to_string(),
            value: self.get(key).unwrap_or("").to_string(),
            message: message.to_string(),
        }
    }

    /// A whole-number parameter in `min..=max`.
    pub fn integer(&self, key: &str, default: u32, min: u32, max: u32) -> Result<u32, BotSpecError> {
        self.in_range(key, default, min, max, "a whole number")
    }

    /// A number parameter in `min..=max`.
    pub fn number(&self, key: &str, default: f32, min: f32, max: f32) -> Result<f32, BotSpecError> {
        self.in_range(key, default, min, max, "a number")
    }

    fn in_range<T>(&self, key: &str, default: T, min: T, max: T, what: &str) -> Result<T, BotSpecError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display,
    {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<T>() {
                Ok(x) if min <= x && x <= max => Ok(x),
                _ => Err(self.bad(key, &format!("expected {what} from {min} to {max}"))),
            },
        }
    }

    /// A finite number ≥ 0 (e.g. a temperature).
    pub fn non_negative(&self, key: &str, default: f32) -> Result<f32, BotSpecError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f32>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(self.bad(key, "expected a finite number >= 0")),
            },
        }
    }

    /// A probability parameter in [0, 1].
    pub fn probability(&self, key: &str, default: f32) -> Result<f32, BotSpecError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f32>() {
                Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
                _ => Err(self.bad(key, "expected a number from 0 to 1")),
            },
        }
    }
}

/// Build a bot from its spec: `random`, `greedy`, `greedy:epsilon=0.1`,
/// `heuristic`, `heuristic:temp=0`, `mcts:sims=400,c=0.7` (or `mcts:400`), `cheat-mcts:200` (a
/// [`Player::Cheating`]).
pub fn from_spec(spec: &str) -> Result<Player, BotSpecError> {
    build(&BotSpec::parse(spec)?)
}

/// Build the bot a parsed spec names (see [`from_spec`]): fresh state, no
/// text parsed again (the self-play runner builds its bots once per game).
pub fn build(s: &BotSpec) -> Result<Player, BotSpecError> {
    if let Some(target) = s.get("opponent") {
        return build_best_response(s, target);
    }
    match s.name.as_str() {
        "random" => {
            s.check_keys(&[])?;
            Ok(Player::Fair(Box::new(RandomBot::new())))
        }
        "greedy" => {
            s.check_keys(&["epsilon"])?;
            Ok(Player::Fair(Box::new(Greedy::new(s.probability("epsilon", 0.0)?))))
        }
        "heuristic" => {
            s.check_keys(&["temp"])?;
            Ok(Player::Fair(Box::new(Heuristic::new(s.non_negative("temp", crate::heuristic::DEFAULT_TEMP)?))))
        }
        "mcts" => match s.get("eval") {
            Some(eval) => {
                let evaluator = BotSpec::parse(eval)?.name;
                if BOT_NAMES.contains(&evaluator.as_str()) {
                    return Err(s.bad("eval", "expected a leaf evaluator such as net:FILE"));
                }
                if evaluator == ENGINE {
                    // Its factory would only see the search's keys and name one of them.
                    return Err(s.bad(
                        "eval",
                        "an engine plays whole moves and evaluates no positions: expected a leaf evaluator such as net:FILE",
                    ));
                }
                external(&evaluator)?(s)
            }
            None if s.get("mix").is_some() => {
                Err(s.bad("mix", "mixes a playout into an outside evaluator's value: give eval=…"))
            }
            None => Ok(Player::Fair(Box::new(Mcts::new(MctsConfig::from_spec(s)?)))),
        },
        "cheat-mcts" => {
            if s.get("eval").is_some() || s.get("mix").is_some() {
                return Err(s.bad("eval", "only `mcts` takes an outside evaluator"));
            }
            Ok(Player::Cheating(Box::new(CheatMcts::new(MctsConfig::from_spec(s)?))))
        }
        other => external(other)?(s),
    }
}

/// `mcts:…,opponent=SPEC`: the search with the bot `SPEC` as its model of
/// the other seat ([`Agent::model_opponent`]). The target must be fair: a
/// model that read the truth would hand the searching seat hidden
/// information.
fn build_best_response(s: &BotSpec, target: &str) -> Result<Player, BotSpecError> {
    if s.name != "mcts" {
        return Err(s.bad("opponent", "only `mcts` searches with an opponent model"));
    }
    let target_spec = BotSpec::parse(target)?;
    let Player::Fair(model) = build(&target_spec)? else {
        return Err(s.bad("opponent", "the opponent model must be a fair bot (it would read hidden information)"));
    };
    let mut search = s.clone();
    search.params.retain(|(k, _)| k != "opponent");
    let Player::Fair(mut searcher) = build(&search)? else {
        return Err(s.bad("opponent", "only a fair search can model an opponent"));
    };
    searcher.model_opponent(model).map_err(|e| s.bad("opponent", &e))?;
    Ok(Player::Fair(searcher))
}

/// Split a comma-separated list of bot specs (`--bots a,b`) where specs may
/// themselves hold commas: a part `key=value` continues the previous spec's
/// parameters. `greedy:epsilon=0.1,x=2,random` → `greedy:epsilon=0.1,x=2` and `random`.
pub fn split_bot_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // An unterminated quote keeps the rest as one part; parsing it says what is wrong.
    let parts = split_outside_quotes(list).unwrap_or_else(|_| vec![list]);
    for part in parts {
        let continues = match part.split_once('=') {
            Some((key, _)) => !key.contains(':'),
            None => false,
        };
        match out.last_mut() {
            Some(prev) if continues && prev.contains(':') => {
                prev.push(',');
                prev.push_str(part);
            }
            _ => out.push(part.trim().to_string()),
        }
    }
    out
}

/// Split at the commas outside double quotes. `Err(rest)`: a quote opened at
/// `rest` is never closed.
fn split_outside_quotes(text: &str) -> Result<Vec<&str>, &str> {
    let (mut parts, mut start, mut quote_at, mut escaped) = (Vec::new(), 0, None, false);
    for (i, c) in text.char_indices() {
        match (quote_at, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(_), '"') => quote_at = None,
            (None, '"') => quote_at = Some(i),
            (None, ',') => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if let Some(at) = quote_at {
        return Err(&text[at..]);
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// A value as written: `"…"` unquoted (`\x` is `x`), anything else as it is
/// (an engine's `cmd=python3 -c "…"` keeps its quotes). `None` when a quoted
/// value goes on after its closing quote.
fn unquote(text: &str) -> Option<String> {
    let Some(inner) = text.strip_prefix('"') else {
        return Some(text.to_string());
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            // The closing quote must end the value.
            '"' => return chars.next().is_none().then_some(out),
            c => out.push(c),
        }
    }
    None
}

/// Write a value so that [`BotSpec::parse`] reads it back: in quotes when it
/// holds a comma or a quote, or space at either end.
fn write_value(f: &mut impl std::fmt::Write, value: &str) -> std::fmt::Result {
    if !value.contains([',', '"']) && value.trim() == value {
        return f.write_str(value);
    }
    f.write_char('"')?;
    for c in value.chars() {
        if c == '"' || c == '\\' {
            f.write_char('\\')?;
        }
        f.write_char(c)?;
    }
    f.write_char('"')
}

/// `value` as a spec writes it: as it is, or in quotes when it holds a comma
/// or a quote (for names assembled by hand, e.g. a search's `,eval=…` suffix).
pub fn spec_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    write_value(&mut out, value).expect("writing to a String");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_print_as_they_parse() {
        for text in ["random", "mcts:sims=800,c=4", "engine:cmd=python3 x.py,option.k=v"] {
            let spec = BotSpec::parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(BotSpec::parse(&spec.to_string()).unwrap(), spec);
        }
        // A bare main value stays bare, and means the same parameter.
        let bare = BotSpec::parse("mcts:800").unwrap();
        assert_eq!(bare.to_string(), "mcts:800");
        assert_eq!(bare.get("sims"), Some("800"));
        // A bare value holding `=` prints with its key, and reads back equal.
        let eq_sign = BotSpec::parse(r#"net:"a=b,c""#).unwrap();
        assert_eq!(eq_sign.to_string(), r#"net:path="a=b,c""#);
        assert_eq!(BotSpec::parse(&eq_sign.to_string()).unwrap(), eq_sign);
        let renamed = BotSpec::parse("net:a").unwrap().with("path", "x=y");
        assert_eq!(BotSpec::parse(&renamed.to_string()).unwrap(), renamed, "{renamed}");
        assert_eq!(BotSpec::parse("net:fanqi,temp=1").unwrap().to_string(), "net:fanqi,temp=1");
        assert_eq!(BotSpec::parse("mcts: 800 , c=4").unwrap().to_string(), "mcts:800,c=4");
        // Values with commas, quotes or backslashes, and a spec nested in a spec.
        let path = r#"runs/a,b=c/"q" \ net.safetensors"#;
        let net = BotSpec::new("net").with("path", path);
        let search = BotSpec::new("mcts").with("sims", 64).with("eval", &net);
        let text = search.to_string();
        let back = BotSpec::parse(&text).unwrap();
        assert_eq!(back, search, "{text}");
        assert_eq!(BotSpec::parse(back.get("eval").unwrap()).unwrap().get("path"), Some(path));
        assert_eq!(split_bot_list(&format!("{text},random")), vec![text.as_str(), "random"]);
        // Windows-style backslashes stay literal outside quotes.
        assert_eq!(BotSpec::parse(r"net:C:\nets\a.safetensors").unwrap().get("path"), Some(r"C:\nets\a.safetensors"));
        assert_eq!(BotSpec::parse(r#"net:"a,b""#).unwrap().get("path"), Some("a,b"));
        // Quotes inside an unquoted value are kept (an engine's command line).
        let engine = BotSpec::parse(r#"engine:cmd=python3 -c "import x, y",timeout=5"#).unwrap();
        assert_eq!(engine.get("cmd"), Some(r#"python3 -c "import x, y""#));
        assert_eq!(BotSpec::parse(&engine.to_string()).unwrap(), engine);
        for bad in [r#"net:path="a,b"#, r#"net:path=a"b"#, r#"net:path="a"b"#, r#"mcts:sims=8,eval="net:x"#] {
            assert!(matches!(BotSpec::parse(bad), Err(BotSpecError::Syntax { .. })), "{bad}");
        }
        // Setting a key again replaces it.
        assert_eq!(BotSpec::new("mcts").with("sims", 8).with("sims", 16).to_string(), "mcts:sims=16");
    }

    #[test]
    fn specs_parse_and_build() {
        assert_eq!(from_spec("random").unwrap().name(), "random");
        assert_eq!(from_spec(" greedy ").unwrap().name(), "greedy");
        assert_eq!(from_spec("greedy:epsilon=0.25").unwrap().name(), "greedy:epsilon=0.25");
        assert_eq!(from_spec("greedy:epsilon=0").unwrap().name(), "greedy");
        assert_eq!(from_spec("heuristic").unwrap().name(), "heuristic");
        assert_eq!(from_spec("heuristic:temp=0").unwrap().name(), "heuristic:temp=0");
        assert_eq!(from_spec("heuristic:temp=0.5").unwrap().name(), "heuristic:temp=0.5");
        // Names round-trip through from_spec.
        for spec in ["heuristic", "heuristic:temp=0", "heuristic:temp=0.25", "heuristic:temp=0.1"] {
            let name = from_spec(spec).unwrap().name();
            assert_eq!(from_spec(&name).unwrap().name(), name);
        }
        let p = BotSpec::parse("mcts:sims=100, c=1.5").unwrap();
        assert_eq!(p.name, "mcts");
        assert_eq!(p.params, vec![("sims".into(), "100".into()), ("c".into(), "1.5".into())]);
    }

    #[test]
    fn bad_specs_say_why() {
        let err = |s: &str| from_spec(s).err().unwrap().to_string();
        assert!(err("").contains("empty bot spec"));
        assert!(err("minimax").contains("unknown bot `minimax`; bots are: random, greedy, heuristic, mcts, cheat-mcts"));
        assert!(err("random:x=1").contains("has no parameter `x` (it takes none)"));
        assert!(err("greedy:eps=1").contains("parameters are: epsilon"));
        assert!(err("greedy:epsilon").contains("must be key=value"));
        assert!(err("greedy:epsilon=2").contains("from 0 to 1"));
        assert!(err("greedy:epsilon=x").contains("bad value `x`"));
        assert!(err("greedy:epsilon=0.1,epsilon=0.2").contains("given twice"));
        assert!(err("greedy:").contains("must be key=value"));
        assert!(err("greedy:0.5").contains("must be key=value"), "only bots with a main parameter take a bare value");
        assert!(err("mcts:sims=0").contains("whole number from 1 to 1000000"));
        assert!(err("mcts:sims=1.5").contains("bad value `1.5` for `sims`"));
        assert!(err("mcts:x").contains("bad value `x` for `sims`"));
        assert!(err("mcts:800,sims=400").contains("`sims` given twice"));
        assert!(err("mcts:sims=10,800").contains("must be key=value"), "a bare value only comes first");
        assert!(err("mcts:c=-1").contains("from 0 to 100"));
        assert!(err("mcts:depth=5000").contains("from 0 to 1000"));
        assert!(err("mcts:rollout=smart").contains("expected random or capture"));
        assert!(err("cheat-mcts:epsilon=1").contains("parameters are: sims, movetime, tc, c, depth, rollout, noise"));
        assert!(err("net:default").contains("built without the `torch` feature"), "{}", err("net:default"));
        assert!(err("mcts:eval=net:default").contains("built without the `torch` feature"));
        assert!(err("mcts:eval=minimax").contains("unknown bot `minimax`"));
        assert!(err("mcts:eval=greedy").contains("expected a leaf evaluator such as net:FILE"));
        // The true reason, whether or not the engine bot is registered.
        for spec in ["mcts:sims=4,eval=engine:cmd=/bin/true", "mcts:c=1,eval= engine :cmd=x"] {
            let e = err(spec);
            assert!(e.contains("an engine plays whole moves") && e.contains("for `eval`"), "{spec}: {e}");
        }
        assert!(err("cheat-mcts:eval=net").contains("only `mcts`"));
        assert!(err("mcts:noise=2").contains("from 0 to 1"));
        assert!(err("mcts:mix=0.5").contains("give eval="));
        assert!(err("mcts:search=alphabeta").contains("expected puct or gumbel"));
        assert!(err("mcts:k=4").contains("applies only with search=gumbel"));
        assert!(err("mcts:search=puct,gscale=0").contains("applies only with search=gumbel"));
        assert!(err("mcts:search=gumbel,k=0").contains("from 1 to 1000"));
        assert!(err("mcts:belief=2").contains("from 0 to 1"));
        assert!(err("heuristic:temp=-1").contains("expected a finite number >= 0"));
        assert!(err("heuristic:temp=inf").contains("bad value `inf` for `temp`"));
        assert!(err("heuristic:temp=x").contains("bad value `x`"));
        assert!(err("heuristic:t=1").contains("parameters are: temp"));
    }

    #[test]
    fn mcts_specs_round_trip() {
        assert_eq!(from_spec("mcts").unwrap().name(), "mcts:sims=400");
        assert_eq!(from_spec("mcts:800").unwrap().name(), "mcts:sims=800");
        assert_eq!(from_spec("mcts: 800 ,c=1.5").unwrap().name(), "mcts:sims=800,c=1.5");
        for spec in [
            "mcts:sims=200,c=1.4,depth=0,rollout=random",
            "cheat-mcts:sims=50,depth=12",
            "mcts:sims=1",
            "mcts:sims=8,noise=0.25,temp=1,temp_plies=20",
            "mcts:sims=128,qtemp=0.1",
            "mcts:sims=16,search=gumbel",
            "mcts:sims=32,noise=0.25,search=gumbel,k=8,cvisit=25,gscale=0",
            "mcts:sims=16,search=gumbel,belief=0",
        ] {
            let name = from_spec(spec).unwrap().name();
            assert_eq!(name, spec);
            assert_eq!(from_spec(&name).unwrap().name(), name);
        }
        assert!(!from_spec("mcts:100").unwrap().cheats());
        assert!(from_spec("cheat-mcts:100").unwrap().cheats());
        // The spec knows without building the bot, for every built-in bot.
        for name in BOT_NAMES {
            let spec = BotSpec::parse(name).unwrap();
            assert_eq!(spec.cheats(), from_spec(name).unwrap().cheats(), "{name}");
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<BotSpec>(&json).unwrap(), spec);
        }
        assert!(serde_json::from_str::<BotSpec>("\"greedy:=3\"").is_err(), "a bad spec is refused when read");
        assert_eq!(BotSpec::parse("mcts:800").unwrap().params, vec![("sims".into(), "800".into())]);
    }

    #[test]
    fn canonical_specs_print_as_the_bots_name_themselves() {
        // Configs store `canonical()` and runs record its text as the bot's
        // name: the two must be the same text, or stored runs would change.
        for text in [
            "random",
            "greedy:epsilon=0",
            "greedy:epsilon=0.1",
            "heuristic",
            "heuristic:temp=0",
            "mcts",
            "mcts:800",
            "mcts: 800 ,c=1.5",
            "cheat-mcts:50",
            "mcts:sims=32,noise=0.25,search=gumbel,k=8,cvisit=25,gscale=0",
        ] {
            let spec = BotSpec::parse(text).unwrap();
            let canonical = spec.canonical().unwrap();
            let name = build(&spec).unwrap().name();
            assert_eq!(canonical.to_string(), name, "{text}");
            assert_eq!(canonical.canonical().unwrap(), canonical, "{text}: canonical twice is canonical once");
            assert_eq!(build(&canonical).unwrap().name(), name);
        }
        assert_eq!(BotSpec::parse("mcts:800").unwrap().canonical().unwrap().to_string(), "mcts:sims=800");
        assert_eq!(BotSpec::parse("greedy:epsilon=0").unwrap().canonical().unwrap(), BotSpec::new("greedy"));
        assert!(BotSpec::parse("mcts:sims=0").unwrap().canonical().is_err(), "canonical checks the parameters");
        // Text and parsed specs are both accepted where an API takes either.
        assert_eq!("mcts:sims=800".into_bot_spec().unwrap(), BotSpec::new("mcts").with("sims", 800));
        assert_ne!(
            BotSpec::parse("mcts:800").unwrap(),
            BotSpec::new("mcts").with("sims", 800),
            "they print differently"
        );
        assert!("greedy:=1".into_bot_spec().is_err());
    }

    #[test]
    fn specs_that_start_programs_are_known_from_the_parsed_names() {
        for spec in [
            "engine:cmd=x",
            "engine :cmd=/tmp/x.sh",
            " engine:cmd=x",
            "engine",
            "mcts:sims=4,eval=engine:cmd=x",
            "mcts:eval= engine :cmd=x",
            r#"mcts:eval="engine:cmd=a,timeout=5""#,
            r#"mcts:eval="engine:cmd=a,b""#,
            r#"mcts:eval="mcts:eval=\"engine:cmd=x\"""#,
        ] {
            assert!(BotSpec::parse(spec).unwrap().starts_programs(), "{spec}");
        }
        for spec in ["random", "mcts:800", "net:engine.safetensors", "mcts:eval=net:x", "engines", "greedy"] {
            assert!(!BotSpec::parse(spec).unwrap().starts_programs(), "{spec}");
        }
        // Nesting without end is answered at once, as starting one.
        let deep = "mcts:eval=".repeat(100_000) + "random";
        assert!(BotSpec::parse(&deep).unwrap().starts_programs());
    }

    #[test]
    fn bot_lists_keep_parameters_together() {
        assert_eq!(split_bot_list("random,greedy"), vec!["random", "greedy"]);
        assert_eq!(split_bot_list("greedy:epsilon=0.1,x=2,random"), vec!["greedy:epsilon=0.1,x=2", "random"]);
        assert_eq!(split_bot_list("random,greedy:epsilon=0.5"), vec!["random", "greedy:epsilon=0.5"]);
        assert_eq!(split_bot_list("greedy"), vec!["greedy"]);
        // A stray key=value with no spec before it stays a (bad) spec of its own.
        assert_eq!(split_bot_list("x=1,random"), vec!["x=1", "random"]);
    }
}
