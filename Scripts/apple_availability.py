"""Apple platform availability for Scripts/apple-typecheck.py.

Swift ignores Apple availability on Linux, so the type-check against stub frameworks cannot tell
an API introduced after the package's platform minimums, used without an `#available` guard, from
one that is always there; nor an API a platform lacks (tvOS has no LAContext) from one it has. This
module does that part, on the source text, for each Apple platform the package supports:

- which code is compiled there: every `#if` / `#elseif` evaluated as that platform's compiler
  would (`os(...)`, `targetEnvironment(...)`, `canImport(...)` of the platform's system modules);
- what each use of an API in the table (Tests/AppleStubs/availability.json) needs there, against
  the package's minimum for the platform raised by the `if #available` / `guard #available` /
  `@available` around the use.

The table's `match` patterns are regular expressions over the code with comments and string
literals blanked; a pattern is tried only in files that import the entry's framework.
"""

import json
import re
from pathlib import Path

PLATFORMS = ["macOS", "iOS", "tvOS", "watchOS", "visionOS", "macCatalyst"]
# `os(...)` names, as Swift spells them; Mac Catalyst is `os(iOS)` with `targetEnvironment(macCatalyst)`.
OS_NAME = {"macOS": "macOS", "iOS": "iOS", "tvOS": "tvOS", "watchOS": "watchOS", "visionOS": "visionOS",
           "macCatalyst": "iOS"}
# Swift's `@available` / `#available` platform names, and the manifest's.
AVAILABILITY_NAME = {"macOS": "macOS", "OSX": "macOS", "iOS": "iOS", "tvOS": "tvOS", "watchOS": "watchOS",
                     "visionOS": "visionOS", "xrOS": "visionOS", "macCatalyst": "macCatalyst"}
MANIFEST_NAME = {"macos": "macOS", "ios": "iOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS",
                 "maccatalyst": "macCatalyst"}
# What SwiftPM assumes for a platform Package.swift does not list (its oldest deployment targets);
# Mac Catalyst follows the iOS minimum when only that is given.
SWIFTPM_DEFAULTS = {"macOS": "10.13", "iOS": "12.0", "tvOS": "12.0", "watchOS": "4.0", "visionOS": "1.0",
                    "macCatalyst": "13.1"}
# System modules: which exist on the Apple platforms (all of them) and which never do.
APPLE_SYSTEM_MODULES = {"Darwin", "Security", "CryptoKit", "AuthenticationServices", "LocalAuthentication",
                        "Foundation", "Dispatch", "ObjectiveC", "CoreFoundation"}
NON_APPLE_MODULES = {"Glibc", "Musl", "WinSDK", "Android", "Bionic", "WASILibc", "ucrt", "FoundationNetworking",
                     "FoundationEssentials"}


def version(text):
    return tuple(int(part) for part in text.split("."))


def version_text(value):
    return ".".join(str(part) for part in value)


# MARK: - The table


def load_table(path):
    table = json.loads(Path(path).read_text())
    problems = []
    for index, entry in enumerate(table.get("apis", [])):
        name = entry.get("api", f"entry {index}")
        for key in ("api", "framework", "match", "source", *PLATFORMS):
            if key not in entry:
                problems.append(f"{path.name}: {name}: no `{key}`")
        for platform in PLATFORMS:
            value = entry.get(platform)
            if value is not None and value != "unavailable" and not re.fullmatch(r"\d+(\.\d+)*", value):
                problems.append(f"{path.name}: {name}: {platform} is `{value}`, not a version or `unavailable`")
        for platform, value in (entry.get("deprecated") or {}).items():
            if platform not in PLATFORMS or not (value == "future" or re.fullmatch(r"\d+(\.\d+)*", value)):
                problems.append(f"{path.name}: {name}: deprecated {platform} `{value}`")
        try:
            entry["pattern"] = re.compile(entry.get("match", ""))
        except re.error as error:
            problems.append(f"{path.name}: {name}: match does not compile: {error}")
    return table, problems


def package_minimums(manifest):
    """The minimum of each Apple platform: Package.swift's, SwiftPM's default where it gives none."""
    declared = {MANIFEST_NAME[p["platformName"]]: p["version"] for p in manifest.get("platforms") or []
                if p.get("platformName") in MANIFEST_NAME}
    minimums = {platform: declared.get(platform, SWIFTPM_DEFAULTS[platform]) for platform in PLATFORMS}
    if "macCatalyst" not in declared and "iOS" in declared:
        minimums["macCatalyst"] = version_text(max(version(declared["iOS"]), version("13.1")))
    return {platform: version(value) for platform, value in minimums.items()}


# MARK: - Code without comments and strings


def blank_comments_and_strings(text):
    """`text` with comments and string literal contents replaced by spaces (newlines kept), so
    that offsets and line numbers stay those of the file."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            j = i + hashes
            delimiter = '"""' if text.startswith('"""', j) else '"'
            close = delimiter + "#" * hashes
            j += len(delimiter)
            while j < n and not text.startswith(close, j):
                if text[j] == "\\" and not hashes:
                    if text.startswith("\\(", j):
                        # An interpolation: skip to its closing parenthesis.
                        depth, j = 1, j + 2
                        while j < n and depth:
                            depth += {"(": 1, ")": -1}.get(text[j], 0)
                            j += 1
                        continue
                    j += 2
                    continue
                if delimiter == '"' and text[j] == "\n":
                    break
                j += 1
            end = min(n, j + len(close))
            blank(i + hashes + len(delimiter), max(i + hashes + len(delimiter), j))
            i = end
        else:
            i += 1
    return "".join(out)


# MARK: - Conditional compilation


CONDITION_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\)|[A-Za-z_][A-Za-z0-9_]*)")


def evaluate_condition(text, predicate):
    """Evaluates an `#if` condition; `predicate(kind, argument)` answers `os`, `canImport`,
    `targetEnvironment`, `arch`, ... and plain flags (kind `flag`)."""
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        match = CONDITION_TOKEN.match(text, position)
        if not match:
            raise ValueError(f"cannot read the condition `{text}`")
        tokens.append(match.group(1).strip())
        position = match.end()
    index = 0

    def peek():
        return tokens[index] if index < len(tokens) else None

    def take():
        nonlocal index
        index += 1
        return tokens[index - 1]

    def primary():
        token = take()
        if token == "!":
            return not primary()
        if token == "(":
            value = disjunction()
            take()
            return value
        if token in ("true", "false"):
            return token == "true"
        if "(" in token:
            kind, argument = token.split("(", 1)
            return predicate(kind.strip(), argument.rstrip(")").split(",")[0].strip())
        return predicate("flag", token)

    def conjunction():
        value = primary()
        while peek() == "&&":
            take()
            value = primary() and value
        return value

    def disjunction():
        value = conjunction()
        while peek() == "||":
            take()
            value = conjunction() or value
        return value

    return disjunction()


DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def active_lines(lines, predicate):
    """For each line, whether it is compiled under `predicate` (directive lines count as not)."""
    active, stack = [], []  # stack of (parent active, taken, current)
    current = True
    for line in lines:
        match = DIRECTIVE.match(line)
        if not match:
            active.append(current)
            continue
        active.append(False)
        kind, rest = match.group(1), match.group(2).split("//")[0]
        if kind == "if":
            value = current and evaluate_condition(rest, predicate)
            stack.append((current, value))
            current = value
        elif kind == "elseif":
            parent, taken = stack[-1]
            value = parent and not taken and evaluate_condition(rest, predicate)
            stack[-1] = (parent, taken or value)
            current = value
        elif kind == "else":
            parent, taken = stack[-1]
            current = parent and not taken
            stack[-1] = (parent, True)
        else:
            current = stack.pop()[0] if stack else True
    return active


def apple_predicate(platform, package_modules):
    """The `#if` predicates as the compiler for `platform` answers them. `package_modules` maps each
    module of the package to the platforms it is built for (`None`: all)."""

    def predicate(kind, argument):
        if kind == "os":
            return argument == OS_NAME[platform]
        if kind == "targetEnvironment":
            return argument == "macCatalyst" and platform == "macCatalyst"
        if kind == "canImport":
            if argument in package_modules:
                platforms = package_modules[argument]
                return platforms is None or platform in platforms
            if argument in NON_APPLE_MODULES:
                return False
            return True
        return True  # arch, compiler, swift, hasFeature, flags: the check reads the code either way

    return predicate


# MARK: - Availability guards


AVAILABLE_CHECK = re.compile(r"#available\s*\(([^()]*)\)")
AVAILABLE_ATTRIBUTE = re.compile(r"@available\s*\(([^()]*)\)")


def parse_availability_list(text):
    """`iOS 17.4, macOS 14.4, *` → {platform: version}; `tvOS, unavailable` → {tvOS: 'unavailable'}."""
    parts = [part.strip() for part in text.split(",")]
    result = {}
    if len(parts) >= 2 and parts[1] == "unavailable" and parts[0] in AVAILABILITY_NAME:
        return {AVAILABILITY_NAME[parts[0]]: "unavailable"}
    for part in parts:
        match = re.fullmatch(r"(\w+)\s+(\d+(?:\.\d+)*)", part)
        if match and match.group(1) in AVAILABILITY_NAME:
            result[AVAILABILITY_NAME[match.group(1)]] = version(match.group(2))
    return result


def guarded_version(spec, platform):
    """What an availability list guarantees on `platform`; Mac Catalyst takes the iOS version
    when the list names no Mac Catalyst one, as Swift does."""
    if platform in spec:
        return spec[platform]
    if platform == "macCatalyst" and "iOS" in spec:
        return spec["iOS"]
    return None


def matching_braces(code):
    pairs, stack = {}, []
    for index, character in enumerate(code):
        if character == "{":
            stack.append(index)
        elif character == "}" and stack:
            pairs[stack.pop()] = index
    return pairs


def enclosing_block_end(code, position, pairs):
    best = len(code)
    for start, end in pairs.items():
        if start < position < end and end < best:
            best = end
    return best


def guard_scopes(code):
    """(start, end, spec) for each region an availability guard covers."""
    pairs = matching_braces(code)
    scopes = []
    for match in AVAILABLE_CHECK.finditer(code):
        spec = parse_availability_list(match.group(1))
        statement_start = max(code.rfind(c, 0, match.start()) for c in "{};\n")
        head = code[statement_start + 1:match.start()]
        first_brace = code.find("{", match.end())
        if first_brace < 0:
            continue
        if re.search(r"\bguard\b", head):
            # `guard #available(...) else { ... }`: the rest of the enclosing block.
            else_end = pairs.get(first_brace, first_brace)
            scopes.append((else_end, enclosing_block_end(code, match.start(), pairs), spec))
        elif re.search(r"\b(if|while)\b", head):
            scopes.append((first_brace, pairs.get(first_brace, len(code)), spec))
    for match in AVAILABLE_ATTRIBUTE.finditer(code):
        spec = parse_availability_list(match.group(1))
        first_brace = code.find("{", match.end())
        if first_brace >= 0:
            scopes.append((match.start(), pairs.get(first_brace, len(code)), spec))
    return scopes


# MARK: - The check


def check_file(path, text, imports, table, minimums, package_modules, relative_name):
    """Problems (failures) and notes of one file's uses of the table's APIs, per platform."""
    problems, notes = [], []
    lines = text.splitlines(keepends=True)
    code_all = blank_comments_and_strings(text)
    code_lines = code_all.splitlines(keepends=True)
    entries = [entry for entry in table["apis"] if entry["framework"] in imports]
    seen_notes = set()
    for platform in PLATFORMS:
        active = active_lines(lines, apple_predicate(platform, package_modules))
        code = "".join(line if on else re.sub(r"[^\n]", " ", line) for line, on in zip(code_lines, active))
        scopes = guard_scopes(code)
        for entry in entries:
            for match in entry["pattern"].finditer(code):
                offset = match.start()
                line_number = code.count("\n", 0, offset) + 1
                where = f"{relative_name}:{line_number}"
                covered = minimums[platform]
                excluded = False
                for start, end, spec in scopes:
                    if start <= offset <= end:
                        value = guarded_version(spec, platform)
                        if value == "unavailable":
                            excluded = True
                        elif value is not None:
                            covered = max(covered, value)
                if excluded:
                    continue
                needed = entry[platform]
                api = entry["api"]
                if needed == "unavailable":
                    problems.append(
                        f"{where}: {api} is unavailable on {platform} ({entry['source']}), and this use is compiled "
                        f"there: exclude {platform} with `#if !os({OS_NAME[platform]})` (or an `@available("
                        f"{platform}, unavailable)` declaration) around it.")
                    continue
                if version(needed) > covered:
                    problems.append(
                        f"{where}: {api} is introduced in {platform} {needed} ({entry['source']}), but the package "
                        f"supports {platform} {version_text(minimums[platform])} and no guard raises that here: "
                        f"use it under `if #available({platform} {needed}, *)` or raise the minimum.")
                    continue
                deprecated = (entry.get("deprecated") or {}).get(platform)
                if deprecated and deprecated != "future" and covered >= version(deprecated):
                    problems.append(
                        f"{where}: {api} is deprecated in {platform} {deprecated} and this use is compiled only for "
                        f"{platform} {version_text(covered)} or later: the Apple build warns, and the project builds "
                        f"with no warning.")
                elif deprecated and (where, api) not in seen_notes:
                    seen_notes.add((where, api))
                    when = "to be deprecated (no version yet)" if deprecated == "future" else f"deprecated in {platform} {deprecated}"
                    notes.append(f"{where}: {api}: {when}; no warning while the oldest system it runs on is older.")
    return problems, notes
