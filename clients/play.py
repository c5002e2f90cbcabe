#!/usr/bin/env python3
"""Plays a hand of every paiju game through the generated Python client.

    PYTHONPATH=target/clients/python python clients/play.py http://127.0.0.1:8080

scripts/clients.sh generates `paiju_client` from openapi/openapi.json (openapi-python-client),
starts a server and runs this. It is also a small example for client writers:

- every call goes through a typed API function (`paiju_client.api.<tag>.<operationId>`), and
  every answer is read as a typed model: a match view comes back as the game's own
  `<Game>MatchView` (the document's `MatchView` is a oneOf over `game`), an error as `Problem`;
- a player registers, creates a table with server-side bots in the other seats (`bots`), and
  then loops: when the view's `to_act` holds its seat it asks `/hint` for the move the server's
  bot would make and submits that at the hint's version; otherwise it long-polls the view
  (`wait_version`) until something changes; it stops when the first hand it plays is over;
- on its first turn it also shows two refusals: a stale version (409 `version_conflict`, which
  carries the current view) and, in 打炸, an illegal action (422 `illegal_action` with the
  game's `rule`, and a Chinese `detail` for `Accept-Language: zh`).

Prints one line per game, and exits non-zero when any game failed (each has GAME_TIMEOUT).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
import uuid
from typing import TypeVar

import httpx

from paiju_client import AuthenticatedClient, Client
from paiju_client.api.accounts import login, register
from paiju_client.api.admin import grant_coins
from paiju_client.api.matches import create_match, get_hint, get_match, submit_action
from paiju_client.models import (
    ActionRequest,
    ChehuziLastResult,
    ChehuziMatchView,
    ChexuanLastResult,
    ChexuanMatchView,
    Credentials,
    ChexuanCreateMatch,
    ChexuanCreateMatchGame,
    ChexuanHint,
    ShengjiCreateMatch,
    ShengjiCreateMatchGame,
    ShengjiHint,
    ChehuziCreateMatch,
    ChehuziCreateMatchGame,
    ChehuziHint,
    DazhaCreateMatch,
    DazhaCreateMatchGame,
    DazhaHint,
    SandahaCreateMatch,
    SandahaCreateMatchGame,
    SandahaHint,
    DazhaActionType0,
    DazhaLastResult,
    DazhaMatchView,
    GameName,
    Grant,
    LedgerEntry,
    MatchStatus,
    Problem,
    ProblemCode,
    RuleCode,
    SandahaLastResult,
    SandahaMatchView,
    Session,
    ShengjiLastResult,
    ShengjiMatchView,
)
from paiju_client.types import UNSET, Response

View = ChexuanMatchView | ShengjiMatchView | ChehuziMatchView | DazhaMatchView | SandahaMatchView
T = TypeVar("T")

Hint = ChexuanHint | ShengjiHint | ChehuziHint | DazhaHint | SandahaHint


class Game:
    """One game's generated models: every request and response that carries game data is typed
    per game (told apart by `game`)."""

    def __init__(self, name: GameName, view, result, create, create_game, hint, seats: int):
        self.name, self.view, self.result, self.hint, self.seats = name, view, result, hint, seats
        self.create, self.create_game = create, create_game


# Every seat but the player's gets a server-side bot.
GAMES: list[Game] = [
    Game(GameName.CHEXUAN, ChexuanMatchView, ChexuanLastResult, ChexuanCreateMatch, ChexuanCreateMatchGame.CHEXUAN, ChexuanHint, 3),
    Game(GameName.SHENGJI, ShengjiMatchView, ShengjiLastResult, ShengjiCreateMatch, ShengjiCreateMatchGame.SHENGJI, ShengjiHint, 4),
    Game(GameName.CHEHUZI, ChehuziMatchView, ChehuziLastResult, ChehuziCreateMatch, ChehuziCreateMatchGame.CHEHUZI, ChehuziHint, 3),
    Game(GameName.DAZHA, DazhaMatchView, DazhaLastResult, DazhaCreateMatch, DazhaCreateMatchGame.DAZHA, DazhaHint, 4),
    Game(GameName.SANDAHA, SandahaMatchView, SandahaLastResult, SandahaCreateMatch, SandahaCreateMatchGame.SANDAHA, SandahaHint, 4),
]
GAME_TIMEOUT = 120.0  # seconds for one game's hand
POLL_SECS = 10  # a long-poll's `timeout` (the server allows up to 30)
PASSWORD = "correct-horse-battery"
# 扯旋 stakes from the wallet: a seat is dealt in only with at least `min_bobo` (100) coins.
CHEXUAN_COINS = 1000


class Failure(Exception):
    pass


def expect(response: Response, cls: type[T]) -> T:
    """The response's parsed body as `cls`, or a Failure that shows what came instead."""
    if not isinstance(response.parsed, cls):
        raise Failure(
            f"expected {cls.__name__}, got HTTP {int(response.status_code)} "
            f"({type(response.parsed).__name__}): {response.content[:500]!r}"
        )
    return response.parsed


def hand_over(view: View, hand: int, result_cls: type) -> bool:
    """Hand `hand` is over: the view shows its result (or a later one's), or the match ended."""
    result = view.last_result
    if result in (None, UNSET):
        return view.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
    # The generated code leaves a union member it could not read a plain dict: check.
    if not isinstance(result, result_cls):
        raise Failure(f"last_result was not read as {result_cls.__name__}: {result}")
    return result.hand_no >= hand


def show_refusals(player: AuthenticatedClient, view: View, hint: Hint, view_cls: type) -> None:
    """Two refusals a client must handle, read as typed Problems; nothing is applied."""
    # A stale version: 409 version_conflict, with the match as it is now under `view`.
    stale = submit_action.sync_detailed(
        view.id, client=player, body=ActionRequest(version=hint.version - 1, action=hint.action)
    )
    problem = expect(stale, Problem)
    assert problem.code == ProblemCode.VERSION_CONFLICT, problem
    assert isinstance(problem.view, view_cls), type(problem.view)
    print(f"  refused: {problem.code.value} (HTTP {problem.status}), current version {problem.view.version}")

    if isinstance(view, DazhaMatchView):
        # An illegal action: playing no cards. The refusal names the game's rule, and says why
        # in Chinese when asked to.
        zh = player.with_headers({"Accept-Language": "zh"})
        empty = DazhaActionType0(type_="play", cards=[])
        illegal = submit_action.sync_detailed(
            view.id, client=zh, body=ActionRequest(version=hint.version, action=empty)
        )
        problem = expect(illegal, Problem)
        assert problem.code == ProblemCode.ILLEGAL_ACTION, problem
        assert isinstance(problem.rule, RuleCode), problem.rule
        print(f"  refused: {problem.code.value} rule={problem.rule.value}: {problem.detail}")


def play_first_hand(base_url: str, admin: AuthenticatedClient, g: Game) -> str:
    game, view_cls, result_cls, seats = g.name, g.view, g.result, g.seats
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    username = f"{game.value}_{uuid.uuid4().hex[:12]}"
    # register and login are anonymous (`security: []`): a plain Client.
    session = expect(
        register.sync_detailed(client=anonymous, body=Credentials(username=username, password=PASSWORD)),
        Session,
    )
    player = AuthenticatedClient(
        base_url=base_url,
        token=session.access_token,
        timeout=httpx.Timeout(POLL_SECS + 20),
        raise_on_unexpected_status=True,
    )
    if game == GameName.CHEXUAN:
        grant = Grant(user_id=session.user.id, amount=CHEXUAN_COINS, note="clients/play.py")
        expect(grant_coins.sync_detailed(client=admin, body=grant), LedgerEntry)

    # A full table deals at once: the view is already in the first hand.
    created = create_match.sync_detailed(client=player, body=g.create(game=g.create_game, seats=seats, bots=seats - 1))
    view: View = expect(created, view_cls)
    assert view.you not in (None, UNSET), "the creator is seated"
    seat = view.you.seat
    hand = view.hand_no  # the hand to play: the first one dealt
    deadline = time.monotonic() + GAME_TIMEOUT
    actions = 0

    while True:
        if actions == 0:
            # A hand can end at the deal before we act (打炸's 摊牌): then play the next one.
            hand = max(hand, view.hand_no)
        if hand_over(view, hand, result_cls):
            break
        if time.monotonic() > deadline:
            raise Failure(f"hand {hand} not over after {GAME_TIMEOUT:.0f} s (version {view.version})")
        if seat not in view.to_act:
            # Not our turn: wait for the next version (or the poll's timeout).
            polled = get_match.sync_detailed(view.id, client=player, wait_version=view.version, timeout=POLL_SECS)
            view = expect(polled, view_cls)
            continue
        hint_response = get_hint.sync_detailed(view.id, client=player)
        if isinstance(hint_response.parsed, Problem) and hint_response.parsed.code == ProblemCode.NOT_YOUR_TURN:
            # The table moved on since this view (a deadline acted for us): read it again.
            view = expect(get_match.sync_detailed(view.id, client=player), view_cls)
            continue
        hint = expect(hint_response, g.hint)
        # The typed action must say all that the server sent (the generated code drops what a
        # model does not know), so that submitting it submits the server's move.
        sent = json.loads(hint_response.content)["action"]
        typed = hint.action.to_dict()
        assert typed == sent, f"the hint {sent} was read as {type(hint.action).__name__} {typed}"
        if actions == 0:
            show_refusals(player, view, hint, view_cls)
        submitted = submit_action.sync_detailed(
            view.id, client=player, body=ActionRequest(version=hint.version, action=hint.action)
        )
        if isinstance(submitted.parsed, Problem) and submitted.parsed.code in (
            ProblemCode.VERSION_CONFLICT,
            ProblemCode.NOT_YOUR_TURN,
        ):
            # Raced with the table (a bot or a deadline moved first): start again from now.
            view = expect(get_match.sync_detailed(view.id, client=player), view_cls)
            continue
        view = expect(submitted, view_cls)
        actions += 1

    # The settlement, typed per game like the rest of the view (docs/rules/<game>.md). Hands that
    # end at the deal are followed at once by the next deal, so it can be a later hand's.
    result = view.last_result
    if result in (None, UNSET):
        raise Failure(f"the match is {view.status.value} without a result (version {view.version})")
    return (
        f"{game.value}: hand {hand} finished after {actions} actions (last_result of hand {result.hand_no}:"
        f" {type(result.detail).__name__}, seat {seat} {result.points[seat]:+} points, {result.coins[seat]:+} coins)"
    )


def main() -> int:
    base_url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PAIJU_URL", "http://127.0.0.1:8080")
    admin_name, _, admin_password = os.environ.get("PAIJU_ADMIN", "admin:admin-password").partition(":")
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    admin_session = expect(
        login.sync_detailed(client=anonymous, body=Credentials(username=admin_name, password=admin_password)),
        Session,
    )
    admin = AuthenticatedClient(base_url=base_url, token=admin_session.access_token, raise_on_unexpected_status=True)
    failed = 0
    for g in GAMES:
        game = g.name
        started = time.monotonic()
        try:
            line = play_first_hand(base_url, admin, g)
            print(f"{line} in {time.monotonic() - started:.1f} s", flush=True)
        except Failure as e:
            failed += 1
            print(f"{game.value}: FAILED: {e}", flush=True)
        except Exception as e:  # noqa: BLE001 -- a model that would not parse, an assertion: report every game
            failed += 1
            traceback.print_exc()
            print(f"{game.value}: FAILED: {type(e).__name__}: {e}", flush=True)
    print(f"clients: {len(GAMES) - failed} of {len(GAMES)} games played a hand through the typed client")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
