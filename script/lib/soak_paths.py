#!/usr/bin/env python3
"""Writes the path list for script/soak: "CLASS PATH" per line, read by script/lib/mixed.lua.

The repositories come from a github-double with the soak's seed (its catalog is deterministic), read
through its search API, so the star-history and avatar paths name real catalog entries.

usage: soak_paths.py DOUBLE_PORT OUT_FILE QUERY...   (QUERY: an app query string, e.g. q=swift&sort=stars)
"""
import http.client
import json
import re
import sys
import urllib.parse

NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


def main():
    port, out_path, queries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lines, stars, avatars = [], set(), set()
    for query in queries:
        fields = dict(urllib.parse.parse_qsl(query))
        lines.append(f"page /?{query}")
        for page in range(2, 11):
            lines.append(f"page /?{query}&page={page}")
        for after in range(20, 1000, 20):
            lines.append(f"fragment /fragments/results?{query}&after={after}")
        for page in range(1, 11):
            upstream = dict(fields, per_page="100", page=str(page))
            connection.request("GET", "/search/repositories?" + urllib.parse.urlencode(upstream))
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                sys.exit(f"soak_paths: the double answered {response.status} for {query} page {page}")
            items = json.loads(body)["items"]
            for item in items:
                owner = item["owner"]
                if NAME.match(owner["login"]) and NAME.match(item["name"]):
                    stars.add(f"stars /fragments/stars/{owner['login']}/{item['name']}")
                avatars.add(f"avatar /avatars/{owner['id']}?s=80")
            if len(items) < 100:
                break
    lines.extend(sorted(stars))
    lines.extend(sorted(avatars))
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(queries)} queries, {len(stars)} star histories, {len(avatars)} avatars")


if __name__ == "__main__":
    main()
