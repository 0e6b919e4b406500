"""Burkozel's bot side (RULES.md Parts A-C): its table, its hands, its buttons
(a tap plays a card; several cards, or a discard of a card that could beat, are chosen
and then confirmed) and its deal results. The flows reach it through
:class:`bot.games.base.BotGame`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from bot.games.base import (
    PICK,
    ForgedAction,
    listed_plays,
    pick_button,
    pick_offered,
    tap_play,
    turn_hint,
)
from bot.games.burkozel import house
from bot.i18n import Html, Texts
from bot.views.callbacks import card_data, play_data
from bot.views.render import (
    Keyboard,
    Shown,
    button,
    card_text,
    cards_text,
    combinations_in,
    keyboard,
    seat_name,
    series_end_text,
    shown_lines,
    time_limit,
    trump_line,
)
from engine import Card, Suit
from engine.burkozel import (
    Deal,
    DealResult,
    Move,
    Play,
    PlayerView,
    RuleSet,
    Series,
    from_record,
    to_record,
)
from engine.burkozel.ai import make_player, safe_move
from engine.burkozel.ai.house import house_move
from engine.burkozel.combinations import SHOWS, show_kind
from engine.burkozel.deal import TrickResult
from engine.burkozel.rules import MAX_PLAYERS, MIN_PLAYERS
from engine.tricks import covers
from storage import Game, PlayerRecord, Seat


class PreviousTrick(NamedTuple):
    """The deal before, while the current one has had no trick: its number, its last
    trick, its trump (★ marks that deal's trumps, not this one's) and the бура or Москва
    that ended it, if one did (C1/C2)."""

    number: int
    trick: TrickResult
    trump: Suit
    shown: Shown | None = None


def play_text(t: Texts, play: Play, seats: Sequence[Seat], trump: Suit, claimant: bool) -> Html:
    if play.declared_beat is None:
        kind = t("table.led")
    elif play.declared_beat:
        kind = t("table.beat")
    else:
        kind = t("table.discarded")
    return t(
        "table.play",
        name=seat_name(seats[play.seat]),
        kind=kind,
        # A closed discard (B1) lies face down for everyone but its owner.
        cards=" ".join(
            filter(None, (cards_text(play.cards, trump), " ".join("🂠" * play.face_down)))
        ),
        mark=" 👑" if claimant else "",
    )


def _table_lines(
    t: Texts, view: PlayerView, seats: Sequence[Seat], previous: PreviousTrick | None = None
) -> list[str]:
    """The trick in progress; else the whole last trick, until the next lead (R8: every
    card on the table is seen by all, the one that completes a trick included).
    ``previous``: the last trick of the deal before, while this one has none yet."""
    if view.table:
        lines: list[str] = [t("table.on_table")]
        for play in view.table:
            claims = play.seat == view.claimant
            lines.append("  " + play_text(t, play, seats, view.trump, claims))
        return lines
    trump = view.trump
    lines = []
    if view.last_trick is not None:
        trick = view.last_trick
        # B1: a view counts only the cards it sees; face-down ones are not counted yet.
        closed = any(play.face_down for play in trick.plays)
        header = t(
            "table.last_trick_closed" if closed else "table.last_trick",
            name=seat_name(seats[trick.winner]),
            points=trick.points,
        )
    elif previous is not None:
        number, trick, trump, shown = previous
        if shown is not None:  # C1/C2: how the deal before ended, with the cards shown
            lines += [t("table.previous_show", deal=number), *shown_lines(t, seats, shown), ""]
        winner = seat_name(seats[trick.winner])
        header = t("table.previous_trick", deal=number, name=winner, points=trick.points)
    else:
        return [t("table.empty")]
    lines.append(header)
    for play in trick.plays:
        lines.append("  " + play_text(t, play, seats, trump, play.seat == trick.winner))
    return lines


def previous_trick(series: Series) -> PreviousTrick | None:
    """The last trick of the deal before, while the current deal has had none."""
    deal = series.deals[-1]
    if deal.last_trick is None and len(series.deals) > 1:
        before = series.deals[-2]
        last = before.last_trick
        if last is None:
            return None
        return PreviousTrick(len(series.deals) - 1, last, before.trump, shown_of(before))
    return None


def shown_of(deal: Deal) -> Shown | None:
    """The бура or Москва that ended ``deal`` (C1/C2): the cards stay in the hands."""
    if deal.outcome not in SHOWS or deal.shown_by is None:
        return None
    by = deal.history[-1].seat  # the show; the deal ended with it
    hands = [deal.hand(seat) for seat in range(deal.players)]
    found = combinations_in(hands, by, lambda hand: show_kind(hand, deal.trump))
    return Shown(by, deal.shown_by, found, deal.trump)


def table_text(
    t: Texts,
    game: Game,
    series: Series,
    *,
    turn_seconds: int | None,
) -> str:
    deal = series.deals[-1]
    view = deal.public_view()  # the group sees no hand and no closed discard (B1)
    totals = series.totals
    lines = [t("table.title", deal=len(series.deals)), trump_line(t, view)]
    doubled = house.stakes_line(t, deal)  # B4
    lines += [doubled, ""] if doubled else [""]
    seat_key = "table.seat_credits" if house.credits(series.rules) else "table.seat"
    for seat in game.seats:
        marker = "▶️" if view.turn == seat.seat else "▫️"
        away = " 💤" if seat.away else ""
        lines.append(
            t(
                seat_key,
                marker=marker,
                name=Html(seat_name(seat) + away + house.seat_mark(series, seat.seat)),
                cards=view.hand_sizes[seat.seat],
                points=view.points[seat.seat] if view.points is not None else "?",
                penalty=totals[seat.seat],
            )
        )
    if house.pairs(series.rules):  # B5: the pooled totals of the two pairs
        lines += house.team_lines(t, game, totals)
    lines.append("")
    lines += _table_lines(t, view, game.seats, previous_trick(series))
    if view.turn is not None:
        seat = game.seats[view.turn]
        lines.append("")
        if turn_seconds is not None and seat.bot_level is None:
            limit = time_limit(t, turn_seconds)
            lines.append(t("table.turn_timed", name=seat_name(seat), limit=limit))
        else:
            lines.append(t("table.turn", name=seat_name(seat)))
    return "\n".join(lines)


def hand_text(
    t: Texts,
    game: Game,
    chat_title: str,
    deal: Deal,
    seat: int,
    *,
    deal_number: int,
    turn_seconds: int | None,
    previous: PreviousTrick | None = None,
    picking: bool = False,
) -> str:
    view = deal.view(seat)
    lines = [
        t("hand.title", chat=chat_title, deal=deal_number),
        trump_line(t, view),
        "",
    ]
    partner = house.partner_line(t, game, seat) if house.pairs(deal.rules) else None
    if partner:  # B5
        lines[2:2] = [partner]
    lines += _table_lines(t, view, game.seats, previous)
    if view.claimant is not None and view.table:
        lines.append(t("hand.claimant", name=seat_name(game.seats[view.claimant])))
    lines.append("")
    if view.turn == seat:
        lead = view.table[0].cards if view.table else None
        most = min(3, min(view.hand_sizes))
        lines.append(
            turn_hint(
                t,
                lead=lead is None,
                most=most,
                count=len(lead or ()),
                picking=picking,
                offered=offers_pick(deal, seat),
                listed=bool(listed_plays(card_plays(deal, seat))),
            )
        )
        if turn_seconds is not None:
            lines.append(t("hand.deadline", limit=time_limit(t, turn_seconds)))
    elif view.turn is not None:
        lines.append(t("hand.waiting", name=seat_name(game.seats[view.turn])))
    lines.append(t("hand.your_cards", cards=cards_text(view.hand, view.trump) or "—"))
    return "\n".join(lines)


def hand_keyboard(
    t: Texts,
    game: Game,
    deal: Deal,
    seat: int,
    selection: Sequence[Card],
    picking: bool = False,
) -> Keyboard | None:
    view = deal.view(seat)
    if not view.hand:
        return None
    version = game.version
    card_row = [
        button(
            ("✅ " if card in selection else "") + card_text(card, view.trump),
            card_data(game.id, version, card.code()),
        )
        for card in view.hand
    ]
    rows = [card_row]
    listed = [] if picking else listed_plays(card_plays(deal, seat), deal.trump)
    shown = [play_button(t, game, deal, move) for move in listed]
    rows += [shown[i : i + 2] for i in range(0, len(shown), 2)]  # short labels: two a row
    if view.turn == seat and selection:
        rows += [[b] for b in action_buttons(t, game, deal, seat, selection) if b not in shown]
    if picking or offers_pick(deal, seat):
        label = pick_button(t, lead=not view.table, picking=picking)
        rows.append([button(label, card_data(game.id, version, PICK))])
    for move in house.combination_moves(deal, seat):  # C1-C4, only while legal
        if move.show is not None:
            text = t(f"house.show_{move.show}")
            # No cards: the engine knows which combination it is (a name here was parsed
            # as card codes and refused every show as a forged button).
            rows.append([button(text, play_data(game.id, version, "s", ""))])
        else:
            codes = ".".join(c.code() for c in move.cards)
            text = t("house.stop", cards=cards_text(move.cards, view.trump))
            rows.append([button(text, play_data(game.id, version, "o", codes))])
    return keyboard(rows)


def card_plays(deal: Deal, seat: int) -> list[Move]:
    """The seat's legal plays of cards on its turn (no shows, no C3/C4 stop)."""
    if deal.turn != seat:
        return []
    return [m for m in deal.legal_moves() if m.show is None and not m.stop]


def offers_pick(deal: Deal, seat: int) -> bool:
    """The hand shows the «➕ Several cards» / «🗑 Discard, don't beat» switch."""
    return pick_offered(card_plays(deal, seat), deal.hand(seat))


def one_tap_move(deal: Deal, seat: int, card: Card) -> Move | None:
    """The move a tap on ``card`` makes at once: a lead of it alone (R6), or an answer to
    one card, beating with it if it can (R7), else discarding it; None for an answer of
    several cards, which is chosen and confirmed."""
    return tap_play(card_plays(deal, seat), card)


def card_taps(deal: Deal, move: Move) -> tuple[list[str], bool]:
    """The card buttons (codes, ``PICK`` first if needed) a person taps to make ``move``,
    and whether the last of them makes it (else a button confirms; no card at all: the
    move is a listed button of its own): for drivers that play through the keyboard,
    like the benchmarks."""
    seat = deal.turn
    assert seat is not None
    if len(move.cards) == 1 and one_tap_move(deal, seat, move.cards[0]) == move:
        return [move.cards[0].code()], True
    if move in listed_plays(card_plays(deal, seat)):
        return [], False
    codes = [c.code() for c in move.cards]
    if offers_pick(deal, seat):
        codes.insert(0, PICK)
    return codes, False


def play_button(t: Texts, game: Game, deal: Deal, move: Move) -> dict[str, str]:
    """A listed play of several cards (``listed_plays``): a lead, a beat or a discard."""
    chosen = tuple(sorted(move.cards))
    kind, key = {
        None: ("l", "hand.act_lead"),
        True: ("b", "hand.act_beat"),
        False: ("d", "hand.act_discard"),
    }[move.beat]
    label = t(key, cards=cards_text(chosen, deal.trump))
    return button(label, play_data(game.id, game.version, kind, ".".join(c.code() for c in chosen)))


def action_buttons(
    t: Texts, game: Game, deal: Deal, seat: int, selection: Sequence[Card]
) -> list[dict[str, str]]:
    """Only the actions legal for this selection (R6, R7)."""
    chosen = tuple(sorted(selection))
    codes = ".".join(c.code() for c in chosen)
    shown = cards_text(chosen, deal.trump)
    buttons = []

    def act(kind: str, key: str) -> dict[str, str]:
        return button(t(key, cards=shown), play_data(game.id, game.version, kind, codes))

    if not deal.table:
        try:
            deal.check(Move(seat, chosen))
            buttons.append(act("l", "hand.act_lead"))
        except ValueError:
            pass
    elif deal.lead_size() == len(chosen):
        claim = next(p.cards for p in deal.table if p.seat == deal.claimant)
        if covers(chosen, claim, deal.trump):
            buttons.append(act("b", "hand.act_beat"))
        buttons.append(act("d", "hand.act_discard"))
    return buttons


def deal_end_text(
    t: Texts,
    game: Game,
    number: int,
    result: DealResult,
    totals: Sequence[int],
    series: Series | None = None,
) -> str:
    lines = [t("deal.over", deal=number)]
    shown = shown_of(series.deals[number - 1]) if series is not None else None
    if shown is not None:
        lines += shown_lines(t, game.seats, shown)
    rules = series.rules if series is not None else None
    row_key = "deal.row_credits" if rules is not None and house.credits(rules) else "deal.row"
    for seat in game.seats:
        lines.append(
            t(
                row_key,
                name=seat_name(seat),
                points=result.points[seat.seat],
                penalty=result.penalties[seat.seat],
                total=totals[seat.seat],
            )
        )
    if series is not None and house.pairs(series.rules):  # B5
        lines += house.team_lines(t, game, totals)
    if series is not None:  # B3
        out = house.eliminated_line(t, game, series, number - 1)
        if out:
            lines.append(out)
    lines.append(t("deal.last_trick", name=seat_name(game.seats[result.last_trick])))
    return "\n".join(lines)


# --- the game behind the common interface ---------------------------------------

# The kinds a play button carries (R7): a lead, a beat, a discard; and under B6 an
# out-of-turn lead "o" (C3/C4). A show (C1/C2) is kind "s" with no cards.
BEAT_OF_KIND: dict[str, bool | None] = {"l": None, "b": True, "d": False, "o": None}
SHOW_OF_SEAT = "s"


class BurkozelBot:
    name = "burkozel"

    def new_series(self, players: int, rules: Mapping[str, Any], first_dealer: int) -> Series:
        switches = {k: v for k, v in rules.items() if k != "game"}
        return Series(players, RuleSet.from_dict(switches), first_dealer=first_dealer)

    def from_record(self, record: dict[str, Any]) -> Series:
        return from_record(record)

    def record(self, series: Series) -> dict[str, Any]:
        return to_record(series)

    def deal_rows(self, series: Series) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return [r.points for r in series.results], [r.penalties for r in series.results]

    def winners(self, series: Series) -> tuple[int, ...]:
        return series.result().winners

    def turn(self, deal: Deal) -> int | None:
        return deal.turn

    def actors(self, deal: Deal) -> tuple[int, ...]:
        return deal.actors()

    def moment(self, deal: Deal) -> int:
        return len(deal.history)

    def trick_open(self, deal: Deal) -> bool:
        return bool(deal.table)

    def trick_shown(self, series: Series) -> str | None:
        deal = series.deals[-1]
        if deal.table:
            return None
        if deal.last_trick is not None:
            return f"{len(series.deals)}.{deal.trick_number}"
        if previous_trick(series) is not None:  # the deal before's last, until the first lead
            return f"{len(series.deals) - 1}.{series.deals[-2].trick_number}"
        return None

    def holds(self, deal: Deal, seat: int, card: Card) -> bool:
        return card in deal.hand(seat)

    def fits(self, deal: Deal, seat: int, cards: Sequence[Card]) -> bool:
        if deal.turn != seat:
            return True
        return any(set(cards) <= set(m.cards) for m in deal.legal_moves())

    def one_tap(self, deal: Deal, seat: int, card: Card) -> Move | None:
        return one_tap_move(deal, seat, card)

    def offers_pick(self, deal: Deal, seat: int) -> bool:
        return offers_pick(deal, seat)

    def parse_action(self, deal: Deal, seat: int, kind: str, cards: tuple[Card, ...]) -> Move:
        if kind == SHOW_OF_SEAT:  # C1/C2: the engine knows which combination it is
            shows = [m for m in house.combination_moves(deal, seat) if m.show is not None]
            if cards or not shows:
                raise ForgedAction(kind)
            return shows[0]
        if kind not in BEAT_OF_KIND:
            raise ForgedAction(kind)
        move = Move(seat, cards, BEAT_OF_KIND[kind], stop=kind == "o")
        deal.check(move)
        return move

    def action_json(self, action: Move) -> dict[str, Any]:
        return action.to_json()

    def computer_action(self, level: str, seed: int, series: Series, seat: int) -> Move:
        deal = series.deals[-1]
        view, legal = deal.view(seat), deal.legal_moves(seat)
        if seat != deal.turn:
            return house_move(view, legal)  # a C3/C4 stopper off turn: takes its lead
        return make_player(level, seed=seed).choose(view, legal)

    def stand_in_action(self, series: Series, seat: int) -> Move:
        """Never a show or an out-of-turn lead: those are the player's own call."""
        deal = series.deals[-1]
        return safe_move(deal.view(seat), house.ordinary(deal.legal_moves(seat)))

    def by_itself(self, series: Series) -> None:
        """Nothing: every move is a player's (the draw after a trick is part of it, R10)."""
        return None

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        return []

    def lobby_title(self, t: Texts) -> str:
        return t("lobby.title")

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        return house.lobby_pair_lines(t, game)

    def lobby_hint(self, t: Texts, game: Game) -> str:
        if house.lobby_pair_lines(t, game):
            return t("lobby.hint_pairs")
        return t("lobby.hint", min=MIN_PLAYERS, max=MAX_PLAYERS)

    def score_lines(self, t: Texts, game: Game, series: Series) -> list[Html]:
        # B5: the pooled totals
        return house.team_lines(t, game, series.totals) if house.pairs(series.rules) else []

    def table_text(self, t: Texts, game: Game, series: Series, *, turn_seconds: int | None) -> str:
        return table_text(t, game, series, turn_seconds=turn_seconds)

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: Series,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        return hand_text(
            t,
            game,
            chat_title,
            series.deals[-1],
            seat,
            deal_number=len(series.deals),
            turn_seconds=turn_seconds,
            previous=previous_trick(series),
            picking=picking,
        )

    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: Series,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None:
        return hand_keyboard(t, game, series.deals[-1], seat, selection, picking)

    def deal_end_text(self, t: Texts, game: Game, series: Series, index: int) -> str:
        result = series.deals[index].result()
        totals = [
            sum(r.penalties[s] for r in series.results[: index + 1]) for s in range(series.players)
        ]
        return deal_end_text(t, game, index + 1, result, totals, series)

    def move_notes(self, t: Texts, game: Game, series: Series, action: Move) -> list[str]:
        return []

    def series_end_text(self, t: Texts, game: Game, series: Series) -> str:
        outcome = series.result()
        teams = house.team_lines(t, game, outcome.totals) if house.pairs(series.rules) else []
        return series_end_text(t, game, outcome.totals, outcome.winners, teams)


BURKOZEL = BurkozelBot()
