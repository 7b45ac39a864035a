"""Serve an SDK ``MCPServer`` module (its ``server``) over Streamable HTTP on loopback, for
``mcplint probe --url`` tests.

    python tests/e2e/servers/serve_http.py SERVER_FILE PORT {sse|json} {stateful|stateless}
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import uvicorn

warnings.simplefilter("ignore")
path, port, answers, state = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("_probe_http_server", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
app = module.server.streamable_http_app(json_response=answers == "json", stateless_http=state == "stateless")
uvicorn.run(app, host="127.0.0.1", port=int(port), log_level="critical")
