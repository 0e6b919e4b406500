import sys, random, statistics as st
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from engine.cards import shuffled_deck
from engine.deal import Deal
from engine.ai.players import GreedyPlayer
from engine.ai.belief import Sampler
from engine.ai.sim import sample_world

def run(eps, hist, pool, decks=30):
    briers_u, briers_p, ess_l = [], [], []
    for d in range(decks):
        deal = Deal.start(2, shuffled_deck(seed=f"bench-{2000+d}"), 1)
        g = [GreedyPlayer(0), GreedyPlayer(1)]
        while not deal.finished:
            seat = deal.turn
            view = deal.view(seat)
            if seat == 0 and view.stock_size > 0:
                opp = {c.index for c in deal.hand(1)}
                rng = random.Random(d * 1000 + view.trick_number)
                s = Sampler(view, eps, pool, hist)
                ws = [s(rng) for _ in range(300)]
                unseen = set()
                for w in ws[:50]: unseen |= set(w.hands[1]) | set(w.stock)
                def brier(worlds):
                    b = 0.0
                    for c in unseen:
                        p = sum(c in w.hands[1] for w in worlds) / len(worlds)
                        b += (p - (c in opp)) ** 2
                    return b
                uni = [sample_world(view, rng) for _ in range(300)]
                briers_u.append(brier(uni)); briers_p.append(brier(ws))
                if s.cum:
                    tot = s.cum[-1]; w = [b - a for a, b in zip([0.0] + s.cum[:-1], s.cum)]
                    ess_l.append(tot * tot / sum(x * x for x in w) if tot else 0)
            deal.apply(g[seat].choose(view, deal.legal_moves()))
    print(eps, hist, pool, "brier uniform", round(st.fmean(briers_u), 3), "posterior", round(st.fmean(briers_p), 3), "ESS", round(st.fmean(ess_l), 1) if ess_l else None, flush=True)

for args in [(0.05, 0, 12), (0.05, 2, 600), (0.05, 8, 600), (0.01, 8, 600)]:
    run(*args)
