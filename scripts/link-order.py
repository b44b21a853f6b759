#!/usr/bin/env python3
"""Writes server/link-order.txt: the functions a release build runs, in groups (what a cold `--check`
calls, what a warm one adds, a language-server session, the other commands), for the linker to lay
out together (server/build.rs hands the file to lld as `--symbol-ordering-file`).

A process's resident memory counts every page of the binary's code it touches, and the kernel maps
code 64 KiB at a time around each fault. Linked in the compiler's order, the 2 MiB of code a
`--check` runs is spread over most of the 10 MiB of the binary (campfire: 5.8 MiB resident); laid
out together, 3.4 MiB (BENCHMARKS.md, "The binary's code laid out by use").

Every workload runs under valgrind's callgrind on inputs this repository owns: the bundled example,
the fixture apps, a synthetic app, and a language-server session on the example. Regenerate after
large changes (a function the file does not name is laid out after the ones it does; a name that no
longer exists is ignored), with valgrind installed:

    cargo build --release && python3 scripts/link-order.py
    python3 scripts/link-order.py --stale    # how many listed names the release binary still has
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "switchyard"
OUT = ROOT / "server" / "link-order.txt"
EXAMPLE = ROOT / "examples" / "blog"
STRUCTURE_SQL = """SET statement_timeout = 0;
CREATE TABLE public.posts (
    id bigint NOT NULL,
    title character varying NOT NULL,
    body text,
    published boolean DEFAULT false,
    user_id bigint,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE public.posts_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER TABLE ONLY public.posts ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq'::regclass);
ALTER TABLE ONLY public.posts ADD CONSTRAINT posts_pkey PRIMARY KEY (id);
CREATE INDEX index_posts_on_user_id ON public.posts USING btree (user_id);
CREATE TABLE public.comments (
    id bigint NOT NULL,
    post_id bigint NOT NULL,
    body text,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
ALTER TABLE ONLY public.comments ADD CONSTRAINT fk_rails_post FOREIGN KEY (post_id) REFERENCES public.posts(id);
"""


def under_callgrind(args, profile):
    """The binary's command line with `args`, under callgrind writing `profile`."""
    return ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={profile}",
            "--compress-strings=no", "--demangle=no", str(BINARY), *args]


def binary_symbols():
    """The names the release binary defines."""
    return set(subprocess.run(["nm", "--defined-only", "--format=just-symbols", str(BINARY)],
                              capture_output=True, text=True, check=True).stdout.split())


def self_costs(profile):
    """Each function's own instructions in one callgrind profile (a call's line is its callee's
    inclusive cost, not the caller's own)."""
    costs = Counter()
    function = None
    skip_next = False
    for line in profile.read_text(errors="replace").splitlines():
        if line.startswith("fn="):
            function = re.sub(r"^\(\d+\) ?", "", line[3:]).strip()
        elif line.startswith("calls="):
            skip_next = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if function and len(fields) >= 2:
                costs[function] += int(fields[-1])
    return costs


class Lsp:
    """A language-server session over the binary's stdio, as an editor holds one."""

    def __init__(self, process):
        self.process = process
        self.next_id = 0
        self.replies = {}
        self.ready = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                with self.ready:
                    self.replies[message["id"]] = message
                    self.ready.notify_all()
            elif "id" in message:  # a request from the server (registrations, progress): accept it
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def _send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=600):
        self.next_id += 1
        request_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        with self.ready:
            self.ready.wait_for(lambda: request_id in self.replies, timeout=timeout)
            return self.replies.pop(request_id, None)


def lsp_session(profile):
    process = subprocess.Popen(under_callgrind([], profile), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    lsp = Lsp(process)
    root = EXAMPLE.resolve()
    lsp.request("initialize", {
        "processId": None,
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": "blog"}],
        "capabilities": {"textDocument": {"publishDiagnostics": {}, "hover": {"contentFormat": ["markdown"]},
                                          "completion": {"completionItem": {"snippetSupport": True}}},
                         "window": {"workDoneProgress": True}},
    })
    lsp.notify("initialized", {})
    files = ["app/models/post.rb", "app/controllers/posts_controller.rb", "config/routes.rb",
             "app/views/posts/index.html.erb", "app/views/posts/_form.html.erb", "db/schema.rb"]
    for relative in files:
        path = root / relative
        if not path.exists():
            continue
        text = path.read_text()
        uri = path.as_uri()
        language = "erb" if relative.endswith(".erb") else "ruby"
        lsp.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})
        document = {"textDocument": {"uri": uri}}
        lsp.request("textDocument/documentSymbol", document)
        lsp.request("textDocument/codeLens", document)
        lsp.request("textDocument/documentLink", document)
        lines = text.splitlines()
        lsp.request("textDocument/inlayHint", {**document, "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}})
        # Every fourth line, at its first word and a few characters in: hover, definition, references,
        # completion, code actions, as a cursor moving through the file asks.
        for number, line in list(enumerate(lines))[::4]:
            indent = len(line) - len(line.lstrip())
            for column in (indent, indent + 4, max(indent, len(line) - 2)):
                position = {**document, "position": {"line": number, "character": column}}
                lsp.request("textDocument/hover", position)
                lsp.request("textDocument/definition", position)
                lsp.request("textDocument/references", {**position, "context": {"includeDeclaration": True}})
                lsp.request("textDocument/completion", position)
            lsp.request("textDocument/codeAction", {**document, "range": {"start": {"line": number, "character": 0}, "end": {"line": number, "character": len(line)}},
                                                    "context": {"diagnostics": []}})
        # Typing at the end of the file: three insertions, each re-checked.
        for version, insertion in enumerate(["\n# note", "\ndef x; end", "\n"], start=2):
            end = {"line": len(lines), "character": 0}
            lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                   "contentChanges": [{"range": {"start": end, "end": end}, "text": insertion}]})
        lsp.request("textDocument/hover", {**document, "position": {"line": 0, "character": 0}})
        lsp.notify("textDocument/didSave", {**document, "text": text})
    lsp.request("workspace/symbol", {"query": "post"})
    lsp.request("shutdown", None)
    lsp.notify("exit", None)
    process.wait(timeout=600)


# What a grown app has that the example does not: tests and specs, fixtures, locales, a mailer,
# routes nested and scoped several levels deep, a HAML template.
VARIANT = {
    "test/test_helper.rb": 'ENV["RAILS_ENV"] ||= "test"\nrequire_relative "../config/environment"\n\nclass ActiveSupport::TestCase\n  fixtures :all\nend\n',
    "test/models/post_test.rb": 'require "test_helper"\n\nclass PostTest < ActiveSupport::TestCase\n  setup do\n    @post = posts(:first)\n  end\n\n'
        '  test "a title is required" do\n    @post.title = nil\n    assert_not @post.valid?\n  end\n\n'
        '  test "comments go with it" do\n    assert_difference "Comment.count", -1 do\n      @post.destroy\n    end\n  end\nend\n',
    "test/controllers/posts_controller_test.rb": 'require "test_helper"\n\nclass PostsControllerTest < ActionDispatch::IntegrationTest\n'
        '  test "index" do\n    get posts_url\n    assert_response :success\n  end\n\n'
        '  test "create" do\n    post posts_url, params: { post: { title: "x", body: "y" } }\n    assert_redirected_to post_url(Post.last)\n  end\nend\n',
    "test/fixtures/posts.yml": "first:\n  title: First\n  body: Hello\n  user: alice\n\nsecond:\n  title: Second\n  body: Again\n",
    "spec/models/comment_spec.rb": 'require "rails_helper"\n\nRSpec.describe Comment do\n  let(:post) { Post.create!(title: "t") }\n  subject(:comment) { described_class.new(post: post) }\n\n'
        '  describe "#valid?" do\n    it "needs a body" do\n      expect(comment).not_to be_valid\n    end\n  end\nend\n',
    "config/locales/en.yml": "en:\n  posts:\n    index:\n      title: Posts\n      empty: \"No posts yet\"\n    show:\n      by: \"by %{author}\"\n  activerecord:\n    models:\n      post: Post\n",
    "config/locales/de.yml": "de:\n  posts:\n    index:\n      title: Beiträge\n      empty: Noch keine Beiträge\n",
    "app/mailers/application_mailer.rb": 'class ApplicationMailer < ActionMailer::Base\n  default from: "blog@example.com"\n  layout "mailer"\nend\n',
    "app/mailers/post_mailer.rb": 'class PostMailer < ApplicationMailer\n  def published(post)\n    @post = post\n    mail to: post.user.email, subject: t(".subject")\n  end\nend\n',
    "app/views/post_mailer/published.text.erb": "<%= @post.title %> is out: <%= post_url(@post) %>\n",
    "app/views/pages/contact.html.haml": "%h1= t(\".title\")\n- if @sent\n  %p.notice Sent\n= link_to \"Posts\", posts_path\n",
    "app/controllers/taggings_controller.rb": 'class TaggingsController < ApplicationController\n  def create\n'
        '    @tagging = Tagging.create!(params.require(:tagging).permit(:post_id, tag_ids: [], names: %i[a b]))\n  end\n\n'
        '  def update\n    Tagging.find(params[:id]).update!(params.expect(tagging: [:post_id, tag_ids: []]))\n  end\nend\n',
    "config/environments/production.rb": 'Rails.application.configure do\n  config.eager_load = true\n  config.force_ssl = true if ENV["SSL"]\n'
        '  if ENV["LOG_TO_STDOUT"].present?\n    config.logger = ActiveSupport::Logger.new(STDOUT)\n  else\n    config.log_level = :info\n  end\nend\n',
    "config/routes.rb": """Rails.application.routes.draw do
  root "posts#index"
  concern :commentable do
    resources :comments, only: %i[create destroy]
  end
  scope "(:locale)", locale: /en|de/ do
    resources :posts, concerns: :commentable do
      member { patch :publish }
      collection { get :drafts }
      resources :taggings, shallow: true, except: :edit
    end
  end
  namespace :admin do
    scope module: :reports, path: "reports" do
      resources :posts, only: %i[index show], path_names: { index: "all" }
    end
    resources :posts, only: %i[index destroy]
    root "posts#index"
  end
  constraints(subdomain: "api") do
    get "feed(.:format)", to: "posts#index", defaults: { format: :json }
  end
  direct(:homepage) { "https://example.com" }
  resource :session, only: %i[new create destroy] do
    scope module: "sessions" do
      resources :transfers, only: %i[show update]
    end
  end
  resources :users, only: :show do
    scope module: "users" do
      resource :avatar, only: %i[show destroy]
      scope defaults: { user_id: "me" } do
        resource :profile
      end
    end
  end
  get "about", to: "pages#about", as: :about
  match "contact", to: "pages#contact", via: %i[get post]
  get "up" => "rails/health#show", as: :rails_health_check
end
""",
}

GITIGNORE = """/.bundle
/log/*
!/log/.keep
/tmp/*
/storage/*
/public/assets
/node_modules
*.swp
*.{log,pid}
.env*
/config/*.key
"""


def stale():
    """How many of the listed functions the release binary has (fewer after large changes or a new
    compiler: its symbol names carry hashes)."""
    symbols = binary_symbols()
    listed = OUT.read_text().split()
    print(f"{sum(name in symbols for name in listed)} of {len(listed)} functions in {OUT.relative_to(ROOT)} "
          f"are in {BINARY.relative_to(ROOT)}")


def main():
    if not BINARY.exists():
        sys.exit(f"no release binary at {BINARY.relative_to(ROOT)}: cargo build --release")
    if sys.argv[1:] == ["--stale"]:
        return stale()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is needed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = Path(scratch)
        cache = out_dir / "cache"
        synthetic = out_dir / "synthetic"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "gen-synthetic-app.py"), "120", str(synthetic)],
                       check=True, stdout=subprocess.DEVNULL)
        # The example again with what a grown app has (VARIANT), a `.gitignore` (its globs become
        # regexes) and its schema as a PostgreSQL dump, for the `db/structure.sql` reader.
        variant = out_dir / "variant"
        shutil.copytree(EXAMPLE, variant)
        for relative, text in VARIANT.items():
            (variant / relative).parent.mkdir(parents=True, exist_ok=True)
            (variant / relative).write_text(text)
        (variant / ".gitignore").write_text(GITIGNORE)
        (synthetic / ".gitignore").write_text(GITIGNORE)
        (variant / "db" / "schema.rb").unlink(missing_ok=True)
        (variant / "db" / "structure.sql").write_text(STRUCTURE_SQL)
        apps = [EXAMPLE, synthetic, variant, *sorted(p for p in (ROOT / "tests" / "fixtures" / "apps").iterdir() if p.is_dir())]
        # Laid out group by group, each group's functions after the groups before: a cold `--check`
        # touches the first group's pages only, a warm one the first two, a server the first three.
        groups = [
            [["--check", "--no-cache", str(app)] for app in apps],
            # The first keeps the index, the second reads it.
            [["--check", "--cache-dir", str(cache), *format, str(app)] for app in apps for format in ([], ["--format", "json"])],
            "lsp",
            [["index", "--no-cache", "--format", "json", str(EXAMPLE)], ["routes", str(EXAMPLE)], ["tree", str(EXAMPLE)],
             ["rules"], ["explain", "syntax.for-loop"],
             *(["preview", str(p)] for p in [*sorted(EXAMPLE.glob("app/*/*.rb"))[:6], EXAMPLE / "config" / "routes.rb", EXAMPLE / "db" / "schema.rb"])],
        ]
        total = sum(1 if group == "lsp" else len(group) for group in groups)
        n = 0
        costs = []
        for group in groups:
            profiles = []
            for args in [None] if group == "lsp" else group:
                n += 1
                what = "a language-server session on the example" if args is None else \
                    "switchyard " + " ".join(os.path.relpath(a, ROOT) if a.startswith("/") else a for a in args)
                print(f"[{n}/{total}] {what}", file=sys.stderr)
                profile = out_dir / f"callgrind.{n}"
                if args is None:
                    lsp_session(profile)
                else:
                    subprocess.run(under_callgrind(args, profile), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                profiles.append(profile)
            costs.append([self_costs(profile) for profile in profiles if profile.exists()])
    symbols = binary_symbols()
    # Within a group, the functions more of its runs call come first (what every app needs, before
    # what one rule needs), the hotter first among equals.
    ordered, seen = [], set()
    for workloads in costs:
        runs, instructions = Counter(), Counter()
        for workload in workloads:
            runs.update(workload.keys())
            instructions.update(workload)
        for name in sorted(instructions, key=lambda name: (-runs[name], -instructions[name])):
            if name in symbols and name not in seen:
                seen.add(name)
                ordered.append(name)
    OUT.write_text("".join(f"{name}\n" for name in ordered))
    print(f"{len(ordered)} functions written to {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
