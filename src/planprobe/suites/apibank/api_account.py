"""Account and bank APIs of API-Bank (GetUserToken … QueryBalance), as its classes behave.

One group of ``apis.World``'s handlers (see ``apis`` for the common behaviour):
each takes the world and the converted arguments and returns the output or raises
``ApiFailure``."""

from __future__ import annotations

import string
from typing import Any

from .api_support import ApiWorld, Handler, fail

# -- account ---------------------------------------------------------------------


def _get_user_token(w: ApiWorld, a: dict[str, Any]) -> Any:
    accounts = w.table("Account")
    if a["username"] not in accounts:
        raise fail("The username does not exist.")
    if accounts[a["username"]]["password"] != a["password"]:
        raise fail("The password is incorrect.")
    return {"token": accounts[a["username"]]["token"]}


def _check_token(w: ApiWorld, a: dict[str, Any]) -> Any:
    return {"username": w.username_of(a["token"])}


def _delete_account(w: ApiWorld, a: dict[str, Any]) -> Any:
    username = w.username_of(a["token"])
    accounts = w.table("Account")
    if username in accounts:
        del accounts[username]
        return {"status": "success"}
    raise fail("No such user.")


def _register_user(w: ApiWorld, a: dict[str, Any]) -> Any:
    accounts = w.table("Account")
    if a["username"] in accounts:
        raise fail("The username already exists.")
    token = "".join(w.rng.choices(string.ascii_letters + string.digits, k=18)).lower()
    accounts[a["username"]] = {"password": a["password"], "token": token, "email": a["email"]}
    return {"token": token}


def _modify_password(w: ApiWorld, a: dict[str, Any]) -> Any:
    username = w.username_of(a["token"])
    account = w.table("Account")[username]
    if account["password"] != a["old_password"]:
        raise fail("The old password is incorrect.")
    account["password"] = a["new_password"]
    return {"status": "success"}


def _forgot_password(w: ApiWorld, a: dict[str, Any]) -> Any:
    status = a["status"]
    accounts = w.table("Account")
    if status == "Forgot Password":
        if "username" not in a or "email" not in a:
            raise fail("The username and email are required for the first call.")
        if a["username"] not in accounts:
            raise fail("The username does not exist.")
        if accounts[a["username"]]["email"] != a["email"]:
            raise fail("The email is incorrect.")
        w.verification_code = 970420
        w.reset_user = a["username"]
        return w.verification_code
    if status == "Verification Code":
        if not w.verification_code:
            raise fail("You need to call the API with status 'Forgot Password' at first.")
        if "new_password" not in a or "verification_code" not in a:
            raise fail("The new password and verification code are required for the second call.")
        if w.verification_code == a["verification_code"]:
            accounts[w.reset_user]["password"] = a["new_password"]
            return "success"
        raise fail("The verification code is incorrect.")
    raise fail("The status is only 'Forgot Password' or 'Verification Code'.")


def _open_bank_account(w: ApiWorld, a: dict[str, Any]) -> Any:
    for item in w.bank_accounts.values():
        if item["account"] == a["account"]:
            return "failed"
    w.bank_accounts[len(w.bank_accounts) + 1] = {"account": a["account"], "password": a["password"],
                                                 "name": a["name"]}
    return "success"


def _query_balance(w: ApiWorld, a: dict[str, Any]) -> Any:
    try:
        a["token"].strip()
        username = w.username_of(a["token"])
    except Exception:  # noqa: BLE001
        raise fail("The token is incorrect.") from None
    bank = w.table("Bank")
    if username not in bank:
        raise fail("The user does not have an account.")
    return bank[username]["balance"]


HANDLERS: dict[str, Handler] = {
    "CheckToken": _check_token,
    "DeleteAccount": _delete_account,
    "ForgotPassword": _forgot_password,
    "GetUserToken": _get_user_token,
    "ModifyPassword": _modify_password,
    "OpenBankAccount": _open_bank_account,
    "QueryBalance": _query_balance,
    "RegisterUser": _register_user,
}
