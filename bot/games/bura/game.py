"""Bura's bot side (RULES.md Part D): its table with face-down discards (🂠), its hands,
its buttons (leads of one or several cards, answers, «Стоп!», declaring, shows, даве)
and its deal results said in words. The flows reach it through ``BotGame``.

The group is drawn from public facts only: hand sizes, cards face up on the table, how
many cards each trick pile holds. A closed discard (D3) is 🂠 for everyone but its owner,
whose hand message lists it; a pile is turned up only on a declaration (D5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.base import (
    PICK,
    ByItself,
    ForgedAction,
    listed_plays,
    pick_button,
    pick_offered,
    tap_play,
    turn_hint,
)
from bot.i18n import Html, Texts
from bot.views.callbacks import card_data, play_data
from bot.views.render import (
    Keyboard,
    Shown,
    button,
    card_text,
    cards_text,
    combinations_in,
    dealt_lines,
    keyboard,
    seat_name,
    series_end_text,
    shown_lines,
    time_limit,
    trump_line,
)
from engine.bura.actions import Action, Answer, Dave, DaveReply, Declare, Lead, Show, TablePlay
from engine.bura.ai import make_bura_player
from engine.bura.ai.players import BuraGreedyPlayer
from engine.bura.combinations import dealt_combination, show_kind
from engine.bura.deal import ANSWER, DAVE, DECLARE, LEAD, BuraDeal
from engine.bura.record import from_record, to_record
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, MAX_PLAYERS, MIN_PLAYERS, BuraRules
from engine.bura.series import BuraSeries, deal_penalties
from engine.bura.view import BuraView
from engine.cards import DECK, Card
from storage import Game, PlayerRecord, Seat

FACE_DOWN = "🂠"


def closed_text(count: int) -> str:
    return " ".join([FACE_DOWN] * count)


def robber(series: BuraSeries) -> bool:
    return series.rules.series != "penalty_12"


def last_trick_taken(deal: BuraDeal) -> bool:
    """The trick just taken was the deal's last: no draw follows, only the end (D9)."""
    return not deal.stock and not any(deal.hands)


def declaration_may_win(view: BuraView, rules: BuraRules) -> bool:
    """Whether declaring (D5) may win, as far as the trick's taker knows: the open cards
    of their pile, and for its face-down cards (D3) the most and the least that many of
    the cards they have not seen elsewhere could hold. Judged from the view alone, so
    whether the draw waits for them (``BuraBot.by_itself``) tells nothing of those cards."""
    pile = view.piles[view.seat]
    known = sum(c.points for c in pile.open_cards)
    elsewhere = {*view.hand, *view.seen_cards()}
    if view.trump_card_in_stock:
        elsewhere.add(view.trump_card)
    unseen = sorted(c.points for c in DECK if c not in elsewhere)
    hidden = len(pile.closed_by)
    most = known + sum(unseen[len(unseen) - hidden :])
    least = known + sum(unseen[:hidden])
    return most >= DECLARE_TARGET and (rules.target == "31" or least <= BUST_LIMIT)


# --- the table (public) ---------------------------------------------------------


def _play_line(
    t: Texts, play: TablePlay, seats: Sequence[Seat], deal: BuraDeal, me: int, crown: int
) -> str:
    """One play on the table; a closed discard shows its cards only to its owner ``me``;
    👑 marks the play of ``crown``, the seat that holds (or took) the trick."""
    if play.beat is None:
        kind = t("bura.stopped") if play.stop else t("table.led")
    else:
        kind = t("table.beat") if play.beat else t("table.discarded")
    if play.closed and play.seat != me:
        cards = closed_text(len(play.cards))
    elif play.closed:
        cards = f"{cards_text(play.cards, deal.trump)} ({FACE_DOWN})"
    else:
        cards = cards_text(play.cards, deal.trump)
    mark = " 👑" if play.seat == crown and play.beat is not False else ""
    return "  " + t(
        "table.play", name=seat_name(seats[play.seat]), kind=kind, cards=cards, mark=mark
    )


def _table_lines(t: Texts, deal: BuraDeal, seats: Sequence[Seat], me: int = -1) -> list[str]:
    """The trick in progress; else the whole trick taken last, until the next lead, so
    the card that completed it reaches everyone. No points: D3 shows no running total."""
    if deal.plays:
        plays = [_play_line(t, p, seats, deal, me, deal.claimant) for p in deal.plays]
        return [t("table.on_table"), *plays]
    taker = deal.last_taker
    if deal.last_trick and taker is not None:
        plays = [_play_line(t, p, seats, deal, me, taker) for p in deal.last_trick]
        return [t("bura.last_trick", name=seat_name(seats[taker])), *plays]
    return [t("table.empty")]


def _waiting_line(t: Texts, deal: BuraDeal, seats: Sequence[Seat]) -> str | None:
    if deal.turn is None:
        return None
    name = seat_name(seats[deal.turn])
    if deal.phase == DECLARE:
        last = last_trick_taken(deal)
        return t("bura.turn_declare_last" if last else "bura.turn_declare", name=name)
    if deal.phase == DAVE:
        assert deal.dave_by is not None
        return t("bura.turn_dave", name=name, by=seat_name(seats[deal.dave_by]))
    return None


def table_text(t: Texts, game: Game, series: BuraSeries, *, turn_seconds: int | None) -> str:
    deal = series.deals[-1]
    view = deal.view(0)  # only its public parts are used below (trump, stock)
    totals = series.totals
    total_key = "bura.seat_wins" if robber(series) else "bura.seat_penalty"
    lines = [t("bura.title", deal=len(series.deals)), trump_line(t, view)]
    if deal.stakes > 1:
        lines.append(t("bura.stakes", n=deal.stakes))
    lines.append("")
    for seat in game.seats:
        marker = "▶️" if deal.turn == seat.seat else "▫️"
        away = " 💤" if seat.away else ""
        lines.append(
            t(
                total_key,
                marker=marker,
                name=Html(seat_name(seat) + away),
                cards=len(deal.hands[seat.seat]),
                pile=len(deal.piles[seat.seat]),
                total=totals[seat.seat],
            )
        )
    lines.append("")
    lines += _table_lines(t, deal, game.seats)
    if deal.turn is not None:
        lines.append("")
        special = _waiting_line(t, deal, game.seats)
        seat = game.seats[deal.turn]
        if special is not None:
            lines.append(special)
        elif turn_seconds is not None and seat.bot_level is None:
            lines.append(
                t("table.turn_timed", name=seat_name(seat), limit=time_limit(t, turn_seconds))
            )
        else:
            lines.append(t("table.turn", name=seat_name(seat)))
    return "\n".join(lines)


# --- a player's hand (private) --------------------------------------------------


def hand_text(
    t: Texts,
    game: Game,
    chat_title: str,
    series: BuraSeries,
    seat: int,
    *,
    turn_seconds: int | None,
    picking: bool = False,
) -> str:
    deal = series.deals[-1]
    view = deal.view(seat)
    lines = [t("bura.hand_title", chat=chat_title, deal=len(series.deals)), trump_line(t, view)]
    if deal.stakes > 1:
        lines.append(t("bura.stakes", n=deal.stakes))
    lines.append("")
    lines += _table_lines(t, deal, game.seats, me=seat)
    pile = view.piles[seat]
    if pile.open_cards or pile.closed_by:
        shown = cards_text(pile.open_cards, view.trump)
        lines.append(
            t("bura.your_pile", cards=shown or "—", closed=closed_text(len(pile.closed_by)) or "—")
        )
    mine = [card for card, owner in view.my_closed if owner >= 0]
    if mine:
        lines.append(t("bura.your_closed", cards=cards_text(mine, view.trump)))
    lines.append("")
    actors = deal.actors()
    if deal.turn == seat and deal.phase == DECLARE and turn_seconds is not None:
        # The draw comes by itself when the time is up (``BuraBot.by_itself``): no tap.
        key = "bura.your_declare_last" if last_trick_taken(deal) else "bura.your_declare"
        lines.append(t(key, limit=time_limit(t, turn_seconds)))
    elif deal.turn == seat:
        lines.append(_your_turn_line(t, deal, seat, picking))
        if turn_seconds is not None:
            lines.append(t("hand.deadline", limit=time_limit(t, turn_seconds)))
    elif seat in actors:
        lines.append(t("bura.you_may_stop", name=seat_name(game.seats[deal.leader])))
    else:
        special = _waiting_line(t, deal, game.seats)
        if special is not None:
            lines.append(special)
        elif deal.turn is not None:
            lines.append(t("hand.waiting", name=seat_name(game.seats[deal.turn])))
    lines.append(t("hand.your_cards", cards=cards_text(view.hand, view.trump) or "—"))
    return "\n".join(lines)


def _your_turn_line(t: Texts, deal: BuraDeal, seat: int, picking: bool) -> str:
    if deal.phase == DECLARE:  # no time given (the draw then waits for a tap)
        return t("bura.your_declare_untimed")
    if deal.phase == DAVE:
        return t("bura.your_dave", n=deal.stakes * 2)
    return turn_hint(
        t,
        lead=deal.phase == LEAD,
        most=deal._lead_limit(seat),
        count=len(deal.claim),
        picking=picking,
        offered=offers_pick(deal, seat),
        listed=bool(listed_plays(_card_actions(deal, seat))),
    )


def _card_actions(deal: BuraDeal, seat: int) -> list[Lead | Answer]:
    """The seat's legal plays of cards on its own turn (not «Стоп!»)."""
    if deal.turn != seat or deal.phase not in (LEAD, ANSWER):
        return []
    return [
        a
        for a in deal.legal_actions(seat)
        if isinstance(a, Answer) or (isinstance(a, Lead) and not a.stop)
    ]


def offers_pick(deal: BuraDeal, seat: int) -> bool:
    """The hand shows the «➕ Several cards» / «🗑 Discard, don't beat» switch."""
    return pick_offered(_card_actions(deal, seat), deal.hands[seat])


def one_tap_action(deal: BuraDeal, seat: int, card: Card) -> Action | None:
    """A tap plays ``card`` at once: a lead of it alone, or an answer to one card that
    beats with it if it can, else discards it (face down under D3's closed discards);
    None for an answer of several cards, which is chosen and confirmed."""
    return tap_play(_card_actions(deal, seat), card)


def hand_keyboard(
    t: Texts,
    game: Game,
    series: BuraSeries,
    seat: int,
    selection: Sequence[Card],
    picking: bool = False,
) -> Keyboard | None:
    deal = series.deals[-1]
    hand = sorted(deal.hands[seat])
    legal = deal.legal_actions(seat)
    if not (hand or legal):
        return None  # (a taker holding no card still declares or draws, D5)
    version = game.version

    def act(kind: str, label: str, cards: Sequence[Card] = ()) -> dict[str, str]:
        codes = ".".join(c.code() for c in cards)
        return button(label, play_data(game.id, version, kind, codes))

    cards = [
        button(
            ("✅ " if card in selection else "") + card_text(card, deal.trump),
            card_data(game.id, version, card.code()),
        )
        for card in hand
    ]
    rows = [cards] if cards else []
    extra: list[dict[str, str]] = []
    for action in legal:
        if isinstance(action, Lead) and action.stop:
            shown = cards_text(sorted(action.cards), deal.trump)
            extra.append(act("s", t("bura.act_stop", cards=shown), sorted(action.cards)))
        elif isinstance(action, Declare):
            if action.declare:
                key = "bura.act_declare"
            else:  # the draw also comes by itself: this only saves the wait
                key = "bura.act_pass_last" if last_trick_taken(deal) else "bura.act_draw"
            extra.append(act("v" if action.declare else "n", t(key)))
        elif isinstance(action, Show):
            extra.append(
                act("B" if action.kind == "bura" else "M", t(f"bura.act_show_{action.kind}"))
            )
        elif isinstance(action, Dave):
            extra.append(act("D", t("bura.act_dave")))
        elif isinstance(action, DaveReply):
            key = "bura.act_accept" if action.accept else "bura.act_fold"
            extra.append(act("a" if action.accept else "f", t(key, n=deal.stakes * 2)))

    def play_button(action: Lead | Answer) -> dict[str, str]:
        cards = tuple(sorted(action.cards))
        shown = cards_text(cards, deal.trump)
        if isinstance(action, Lead):
            return act("l", t("hand.act_lead", cards=shown), cards)
        if action.beat:
            return act("b", t("hand.act_beat", cards=shown), cards)
        closed = deal.rules.discards == "closed"
        key = "bura.act_discard_closed" if closed else "hand.act_discard"
        return act("d", t(key, cards=shown), cards)

    listed = (
        []
        if picking
        else [play_button(a) for a in listed_plays(_card_actions(deal, seat), deal.trump)]
    )
    rows += [listed[i : i + 2] for i in range(0, len(listed), 2)]  # short labels: two a row
    chosen = tuple(sorted(selection))
    if chosen:
        for action in _card_actions(deal, seat):
            if tuple(sorted(action.cards)) == chosen and play_button(action) not in listed:
                rows.append([play_button(action)])
    if picking or offers_pick(deal, seat):
        label = pick_button(t, lead=deal.phase == LEAD, picking=picking)
        rows.append([button(label, card_data(game.id, version, PICK))])
    rows += [[b] for b in extra]
    return keyboard(rows)


# --- results in words --------------------------------------------------------------


def shown_of(deal: BuraDeal) -> Shown | None:
    """The бура or Москва that ended ``deal`` (D6/D8): the cards stay in the hands."""
    result = deal.result()
    if result.outcome not in ("bura", "moscow"):
        return None
    assert result.by is not None and result.winner is not None
    found = combinations_in(deal.hands, result.by, lambda h: show_kind(h, deal.trump, deal.rules))
    return Shown(result.by, result.winner, found, deal.trump)


def deal_end_text(t: Texts, game: Game, series: BuraSeries, index: int) -> str:
    deal = series.deals[index]
    result = deal.result()
    seats = game.seats
    by = seat_name(seats[result.by]) if result.by is not None else ""
    winner = seat_name(seats[result.winner]) if result.winner is not None else ""
    lines = [t("deal.over", deal=index + 1)]
    outcome = result.outcome
    if outcome == "void" and result.run_out:
        lines.append(t("bura.void_run_out"))
    elif outcome == "void":  # D9: which combination, whose, and its cards
        lines.append(t("bura.void_dealt"))
        first = (deal.dealer + 1) % deal.players  # the first hand dealt (D1)
        dealt = combinations_in(
            deal.hands, first, lambda h: dealt_combination(h, deal.trump, deal.rules)
        )
        lines += dealt_lines(t, seats, dealt, deal.trump)
    elif outcome == "declared":
        lines.append(t("bura.declared", name=by, points=result.points[result.by or 0]))
    elif outcome == "false_declaration":
        lines.append(t("bura.false_declaration", name=by, points=result.points[result.by or 0]))
    elif outcome in ("bura", "moscow"):
        shown = shown_of(deal)
        assert shown is not None
        lines += shown_lines(t, seats, shown)
    elif outcome == "fold":
        loser = next(s for s in range(deal.players) if s != result.winner)
        lines.append(t("bura.folded", name=seat_name(seats[loser]), winner=winner))
    if outcome in ("declared", "false_declaration") and result.by is not None:
        pile = [pc.card for pc in deal.piles[result.by]]
        lines.append(t("bura.pile_turned", cards=cards_text(pile, deal.trump) or "—"))
    if result.stakes > 1 and outcome != "void":
        lines.append(t("bura.stakes", n=result.stakes))
    added = deal_penalties(result, deal.players, series.rules)
    totals = [sum(p[s] for p in series.penalties[: index + 1]) for s in range(deal.players)]
    key = "bura.row_wins" if robber(series) else "bura.row_penalty"
    if outcome != "void":
        for seat in seats:
            lines.append(
                t(key, name=seat_name(seat), add=added[seat.seat], total=totals[seat.seat])
            )
    return "\n".join(lines)


def move_notes(t: Texts, game: Game, series: BuraSeries, action: Action) -> list[str]:
    name = seat_name(game.seats[action.seat])
    if isinstance(action, Lead) and action.stop:
        return [t("bura.note_stop", name=name)]
    if isinstance(action, Dave):
        return [t("bura.note_dave", name=name)]
    if isinstance(action, DaveReply) and action.accept:
        return [t("bura.note_accept", name=name, n=series.deals[-1].stakes)]
    return []


# --- the game behind the common interface ---------------------------------------

KINDS = {"B": "bura", "M": "moscow"}


class BuraBot:
    name = "bura"

    def new_series(self, players: int, rules: Mapping[str, Any], first_dealer: int) -> BuraSeries:
        switches = {k: v for k, v in rules.items() if k != "game"}
        return BuraSeries(players, BuraRules.from_dict(switches), first_dealer)

    def from_record(self, record: dict[str, Any]) -> BuraSeries:
        return from_record(record)

    def record(self, series: BuraSeries) -> dict[str, Any]:
        return to_record(series)

    def deal_rows(self, series: BuraSeries) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return [r.points for r in series.results], list(series.penalties)

    def winners(self, series: BuraSeries) -> tuple[int, ...]:
        return series.result().winners

    def turn(self, deal: BuraDeal) -> int | None:
        return deal.turn

    def actors(self, deal: BuraDeal) -> tuple[int, ...]:
        return deal.actors()

    def moment(self, deal: BuraDeal) -> int:
        return len(deal.history)

    def trick_open(self, deal: BuraDeal) -> bool:
        return bool(deal.plays)

    def trick_shown(self, series: BuraSeries) -> str | None:
        deal = series.deals[-1]
        if deal.plays or not deal.last_trick:
            return None
        return f"{len(series.deals)}.{deal.trick_number}"

    def holds(self, deal: BuraDeal, seat: int, card: Card) -> bool:
        return card in deal.hands[seat]

    def fits(self, deal: BuraDeal, seat: int, cards: Sequence[Card]) -> bool:
        plays = _card_actions(deal, seat)
        return not plays or any(set(cards) <= set(a.cards) for a in plays)

    def one_tap(self, deal: BuraDeal, seat: int, card: Card) -> Action | None:
        return one_tap_action(deal, seat, card)

    def offers_pick(self, deal: BuraDeal, seat: int) -> bool:
        return offers_pick(deal, seat)

    def parse_action(self, deal: BuraDeal, seat: int, kind: str, cards: tuple[Card, ...]) -> Action:
        action: Action
        if kind in ("l", "s"):
            action = Lead(seat, cards, stop=kind == "s")
        elif kind in ("b", "d"):
            action = Answer(seat, cards, beat=kind == "b")
        elif kind in ("v", "n"):
            action = Declare(seat, kind == "v")
        elif kind in KINDS:
            action = Show(seat, KINDS[kind])
        elif kind == "D":
            action = Dave(seat)
        elif kind in ("a", "f"):
            action = DaveReply(seat, kind == "a")
        else:
            raise ForgedAction(kind)
        if cards and not isinstance(action, Lead | Answer):
            raise ForgedAction(kind)
        deal.check(action)
        return action

    def action_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def computer_action(
        self, level: str, seed: int, series: BuraSeries, seat: int
    ) -> Action | None:
        deal = series.deals[-1]
        player = make_bura_player(level, series.rules, seed=seed)
        return player.choose(deal.view(seat), deal.legal_actions(seat))

    def stand_in_action(self, series: BuraSeries, seat: int) -> Action:
        """For a person who let the timer run out: play on, never declare nor say даве
        (those are a player's own calls). A даве put to them is folded: the stand-in
        never raises the stakes on someone's behalf, and folding costs exactly what the
        deal was worth before the даве."""
        deal = series.deals[-1]
        legal = deal.legal_actions(seat)
        if deal.phase == DECLARE:
            return Declare(seat, False)
        if deal.phase == DAVE:
            return DaveReply(seat, False)
        plain = [a for a in legal if not isinstance(a, Dave)]
        choice = BuraGreedyPlayer(series.rules).choose(deal.view(seat), plain)
        return choice if choice is not None else plain[0]

    def by_itself(self, series: BuraSeries) -> ByItself | None:
        """After a trick the draw (D4) comes by itself: at once where the taker cannot
        know a declaration (D5) to have a chance (``declaration_may_win``), else when
        the flows' short pause is over, «Вскрываюсь» offered meanwhile (issue 27)."""
        deal = series.deals[-1]
        if deal.phase != DECLARE or deal.turn is None:
            return None
        seat = deal.turn
        chance = declaration_may_win(deal.view(seat), deal.rules)
        return ByItself(Declare(seat, False), at_once=not chance)

    def table_text(
        self, t: Texts, game: Game, series: BuraSeries, *, turn_seconds: int | None
    ) -> str:
        return table_text(t, game, series, turn_seconds=turn_seconds)

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: BuraSeries,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        return hand_text(
            t, game, chat_title, series, seat, turn_seconds=turn_seconds, picking=picking
        )

    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: BuraSeries,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None:
        return hand_keyboard(t, game, series, seat, selection, picking)

    def deal_end_text(self, t: Texts, game: Game, series: BuraSeries, index: int) -> str:
        return deal_end_text(t, game, series, index)

    def move_notes(self, t: Texts, game: Game, series: BuraSeries, action: Action) -> list[str]:
        return move_notes(t, game, series, action)

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        return [
            t("stats.declarations", true=stats.declarations_true, false=stats.declarations_false)
        ]

    def lobby_title(self, t: Texts) -> str:
        return t("lobby.title_game", game=t("game.bura"))

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        return []

    def lobby_hint(self, t: Texts, game: Game) -> str:
        return t("lobby.hint", min=MIN_PLAYERS, max=MAX_PLAYERS)

    def score_lines(self, t: Texts, game: Game, series: BuraSeries) -> list[Html]:
        return []

    def series_end_text(self, t: Texts, game: Game, series: BuraSeries) -> str:
        outcome = series.result()
        return series_end_text(t, game, outcome.totals, outcome.winners)


BURA = BuraBot()
