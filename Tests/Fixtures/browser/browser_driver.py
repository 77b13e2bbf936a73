#!/usr/bin/env python3
"""Drives Debian's headless Chromium for the preview end-to-end tests (Tests/EndToEndTests/PreviewTests.swift).

Usage: browser_driver.py COMMAND_FIFO [--size W,H]

Reads one JSON command per line from COMMAND_FIFO and answers each on stdout as
`R<id> <json>` (the test waits for that line). Commands:
  {"id":1,"op":"open","url":U}                     load a page
  {"id":2,"op":"eval","js":"return ..."}           run JavaScript, answer its value
  {"id":3,"op":"wait","js":"return ...","timeout":S} poll the expression until truthy; answer seconds taken or null
  {"id":4,"op":"screenshot","path":P}              save a PNG of the window
  {"id":5,"op":"click","element":"stop","accept":true}  click #element; accept a confirm() if one opens
  {"id":6,"op":"clock"}                            CLOCK_MONOTONIC minus the page's Date.now() (seconds)
  {"id":8,"op":"tab","to":"new"}                   open a blank tab in front (the page's tab goes to the background)
  {"id":9,"op":"tab","to":"first"}                 close the other tabs; the first one is in front again
  {"id":7,"op":"quit"}
Every answer is {"ok":true,"value":...} or {"ok":false,"error":"..."}. Bounded: each command has a timeout,
and the driver quits when the FIFO closes.
"""
import json
import sys
import time

import os

# Selenium must not send usage statistics anywhere (network only to 127.0.0.1), and with the
# driver's path given it never downloads one.
os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def make_driver(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--autoplay-policy=no-user-gesture-required", "--mute-audio",
                "--no-first-run", "--no-default-browser-check",
                # No traffic beyond the page on 127.0.0.1: no updates, sync, metrics or safe-browsing lists.
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only", f"--window-size={width},{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def handle(driver, command):
    op = command["op"]
    if op == "open":
        driver.get(command["url"])
        return None
    if op == "eval":
        return driver.execute_script(command["js"])
    if op == "wait":
        start = time.monotonic()
        deadline = start + float(command.get("timeout", 10))
        while time.monotonic() < deadline:
            if driver.execute_script(command["js"]):
                return time.monotonic() - start
            time.sleep(0.02)
        return None
    if op == "screenshot":
        return driver.save_screenshot(command["path"])
    if op == "click":
        driver.find_element(By.ID, command["element"]).click()
        if command.get("accept"):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    driver.switch_to.alert.accept()
                    break
                except Exception:
                    time.sleep(0.05)
        return None
    if op == "clock":
        before = time.monotonic()
        page_ms = driver.execute_script("return Date.now()")
        after = time.monotonic()
        return (before + after) / 2 - page_ms / 1000.0
    if op == "tab":
        first = driver.window_handles[0]
        if command["to"] == "new":
            driver.switch_to.new_window("tab")
            driver.get("about:blank")
        else:
            for handle in driver.window_handles[1:]:
                driver.switch_to.window(handle)
                driver.close()
            driver.switch_to.window(first)
        return None
    raise ValueError(f"unknown op {op}")


def main():
    fifo = sys.argv[1]
    width, height = 1280, 900
    if "--size" in sys.argv:
        width, height = (int(v) for v in sys.argv[sys.argv.index("--size") + 1].split(","))
    driver = make_driver(width, height)
    print("ready", flush=True)
    try:
        with open(fifo, "r") as commands:
            for line in commands:
                line = line.strip()
                if not line:
                    continue
                command = json.loads(line)
                if command["op"] == "quit":
                    print(f"R{command['id']} " + json.dumps({"ok": True, "value": None}), flush=True)
                    break
                try:
                    answer = {"ok": True, "value": handle(driver, command)}
                except Exception as error:  # the test reports it
                    answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
                print(f"R{command['id']} " + json.dumps(answer), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
