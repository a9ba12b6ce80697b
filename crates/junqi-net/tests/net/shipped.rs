//! The shipped nets by name: `net:fanqi`, `net:anqi`, and `net:default`,
//! which plays the shipped net of the mode being played (the 暗棋 net in
//! 暗棋 and 明棋, the 翻棋 net in 翻棋), policy, search and deployment.

use junqi_bots::{from_spec, Decision};
use junqi_core::{rng_from_seed, Colour, Game, Mode, Position, Rules};
use junqi_net::{default_net_for, register_net_bots};

fn decide(spec: &str, game: &Game) -> Decision {
    let mut bot = from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    bot.act(game, &mut rng_from_seed(1))
}

fn policy(d: &Decision) -> Vec<(String, f32)> {
    d.policy.iter().map(|(m, p)| (m.to_string(), *p)).collect()
}

#[test]
fn net_default_plays_the_shipped_net_of_the_mode_being_played() {
    let _services = crate::shared_services();
    register_net_bots();
    for mode in [Mode::Fanqi, Mode::Anqi, Mode::Mingqi] {
        let own = format!("net:{}", default_net_for(mode));
        let other = if mode == Mode::Fanqi { "net:anqi" } else { "net:fanqi" };
        let game = Game::new(Position::new_game(Rules::preset(mode), 7));
        let default = policy(&decide("net:default", &game));
        assert_eq!(default, policy(&decide(&own, &game)), "{mode}: net:default is {own}");
        // The two nets disagree here, so the comparison above can fail.
        assert_ne!(default, policy(&decide(other, &game)), "{mode}");
        let search = |net: &str| policy(&decide(&format!("mcts:sims=8,c=4,eval={net}"), &game));
        assert_eq!(search("net:default"), search(&own), "{mode}: the search with net:default");
    }
    // Deployments come from the 暗棋 net too (`net:anqi` has a learned
    // deployment model; `net:anqi-distilled` has none and deploys in the
    // heuristic formations, so the comparison can fail).
    let rules = Rules::preset(Mode::Anqi);
    let deploy = |spec: &str| from_spec(spec).unwrap().deploy(Colour::Red, &rules, &mut rng_from_seed(3));
    assert_eq!(deploy("net:default"), deploy("net:anqi"));
    assert_eq!(deploy("mcts:sims=8,eval=net:default"), deploy("net:anqi"));
    assert_ne!(deploy("net:anqi"), deploy("net:anqi-distilled"));
}

/// The 暗棋 net shipped until 2026-12-05 keeps a name of its own: another
/// file that plays differently, with the deployment model today's net
/// carried over from it.
#[test]
fn the_earlier_anqi_net_keeps_its_name() {
    let _services = crate::shared_services();
    register_net_bots();
    let rules = Rules::preset(Mode::Anqi);
    let game = Game::new(Position::new_game(rules, 7));
    let plays = |name: &str| policy(&decide(&format!("net:{name}"), &game));
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/nets/");
    assert_eq!(plays("anqi-q"), plays(&format!("{root}anqi-q/net.safetensors")));
    assert_ne!(plays("anqi-q"), plays("anqi"));
    assert_eq!(plays("anqi"), plays(&format!("{root}anqi-decisive-r1/net.safetensors")));
    let deploy = |spec: &str| from_spec(spec).unwrap().deploy(Colour::Red, &rules, &mut rng_from_seed(5));
    assert_eq!(deploy("net:anqi"), deploy("net:anqi-q"));
}

/// The earlier 翻棋 nets keep names of their own (configs and reports name
/// them): `fanqi-policy` is the shipped net until 2026-12-05, now its own
/// file; `fanqi-decisive` is today's `fanqi`; `fanqi-gumbel` (the teacher)
/// and `fanqi-1h-bilinear` (where the Gumbel loop started) are other nets,
/// each with its own file.
#[test]
fn earlier_fanqi_nets_keep_their_names() {
    let _services = crate::shared_services();
    register_net_bots();
    let game = Game::new(Position::new_game(Rules::preset(Mode::Fanqi), 11));
    let plays = |name: &str| policy(&decide(&format!("net:{name}"), &game));
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/nets/");
    // The net that plays to win is today's net:fanqi, read through the history planes.
    assert_eq!(plays("fanqi-decisive"), plays("fanqi"));
    assert_eq!(plays("fanqi-decisive"), plays(&format!("{root}fanqi-history-quiet-r4-return1/net.safetensors")));
    // The net it replaced keeps its old name and plays differently.
    let replaced = plays("fanqi-policy");
    assert_ne!(replaced, plays("fanqi"));
    assert_eq!(replaced, plays(&format!("{root}fanqi-policy/net.safetensors")));
    let teacher = plays("fanqi-gumbel");
    assert_ne!(teacher, replaced);
    assert_ne!(teacher, plays("fanqi-1h-bilinear"));
    assert_eq!(plays("fanqi-1h-bilinear"), plays(&format!("{root}fanqi-1h-bilinear.safetensors")));
    let size = |name: &str| std::fs::metadata(junqi_net::resolve_net_path(name)).unwrap().len();
    assert!(size("fanqi") > 3 * size("fanqi-gumbel"), "net:fanqi is a 4×64 net, net:fanqi-gumbel a 3×32 one");
}
