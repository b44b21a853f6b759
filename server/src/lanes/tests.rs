//! Each `lanes.*` rule on a small app, with the cases it must stay silent on. The verdicts were held
//! to the runtimes' own sources (FIDELITY.md, "Runtime lanes").

use expect_test::{Expect, expect};

use crate::app::AppContext;
use crate::test_fixture::Fixture;

/// Every lane finding of the app, `file:line severity rule [lanes] message`, in order.
fn lanes(fixture: &str, expect: Expect) {
    let fixture = Fixture::new(fixture);
    let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
    let lines: Vec<String> = context
        .lanes()
        .findings
        .iter()
        .map(|f| {
            let lanes: Vec<&str> = f.lanes().iter().map(|l| l.as_str()).collect();
            format!(
                "{}:{} {} {} [{}] {}",
                f.relative_path,
                f.diagnostic.span.start.line + 1,
                f.diagnostic.severity.as_str(),
                f.diagnostic.rule,
                lanes.join(","),
                f.diagnostic.message
            )
        })
        .collect();
    expect.assert_eq(&lines.join("\n"));
}

const ROUTES: &str = "#- /config/routes.rb\nRails.application.routes.draw do\nend\n";

#[test]
fn puma_workers_that_fork_by_default() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /config/puma.rb
            threads 5, 5
            workers ENV.fetch("WEB_CONCURRENCY") {{ 2 }}
            workers 4 if ENV["RACK_ENV"] == "production"
            workers 2 if Process.respond_to?(:fork)
            workers ENV.fetch("WEB_CONCURRENCY", 0)
            n = ENV.fetch("WEB_CONCURRENCY", 1).to_i
            workers n if n > 1
            "#
        ),
        expect![[r#"
            config/puma.rb:2 warning lanes.forked-workers [jruby,truffleruby] `workers ENV.fetch("WEB_CONCURRENCY") { 2 }` forks Puma workers unless WEB_CONCURRENCY is 0: JRuby and TruffleRuby cannot fork, so Puma stops at boot there ("worker mode not supported"). Start them with `WEB_CONCURRENCY=0` (one process with threads), or set `workers` only `if Process.respond_to?(:fork)`.
            config/puma.rb:3 error lanes.forked-workers [jruby,truffleruby] `workers 4` (run `if ENV["RACK_ENV"] == "production"`) runs Puma in cluster mode with 4 forked worker(s): JRuby and TruffleRuby cannot fork, so Puma stops at boot there ("worker mode not supported"). Run one process with threads there: set `workers` only `if Process.respond_to?(:fork)`."#]],
    );
}

#[test]
fn forked_workers_and_live_broadcasts_in_the_cruby_tree() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /config/puma.rb
            workers Integer(ENV.fetch("WEB_CONCURRENCY") {{ 3 }}) unless RUBY_ENGINE == "jruby"
            #- /app/models/message.rb
            class Message < ApplicationRecord
              after_create_commit -> {{ broadcast_append_to room, :messages }}
            end
            #- /app/controllers/pings_controller.rb
            class PingsController < ApplicationController
              def create = Turbo::StreamsChannel.broadcast_append_to("x")
            end
            "#
        ),
        expect![[
            r#"config/puma.rb:1 warning lanes.forked-state [ruby] Deployed with forked workers as `workers Integer(ENV.fetch("WEB_CONCURRENCY") { 3 })` does, the CRuby tree Roundhouse emits keeps Action Cable's subscribers inside each worker: a live update reaches only the browsers connected to the worker that sent it (this app broadcasts: `broadcast_append_to` at app/models/message.rb:2). Deploy that tree as one process with threads (`WEB_CONCURRENCY=0`); one JVM process shares one registry across its threads."#
        ]],
    );
    // No broadcast in a model: the tree has no Action Cable registry to split.
    lanes(
        &format!(
            r#"{ROUTES}
            #- /config/puma.rb
            workers 2 unless RUBY_ENGINE == "jruby"
            #- /app/views/rooms/show.html.erb
            <%= turbo_stream_from @room %>
            "#
        ),
        expect![[""]],
    );
}

#[test]
fn procfile_and_dockerfile_commands_that_fork() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /Procfile
            web: bundle exec puma -w 3 -C config/puma.rb
            worker: FORK_PER_JOB=false bundle exec resque-pool
            jobs: bin/jobs
            async_jobs: SOLID_QUEUE_SUPERVISOR_MODE=async bin/jobs
            resque: QUEUE=* bundle exec rake resque:work
            dj: bin/delayed_job start
            dj_fg: bin/delayed_job run
            gj: bundle exec good_job start --daemonize
            #- /Dockerfile
            FROM ruby:3.4
            CMD ["bundle", "exec", "unicorn", "-c", "config/unicorn.rb"]
            "#
        ),
        expect![[r#"
            Dockerfile:2 warning lanes.forking-process [jruby,truffleruby] Unicorn is a forking server (and a C extension with no JVM build): it does not run on JRuby or TruffleRuby. Serve with Puma there, one process with threads.
            Procfile:1 error lanes.forked-workers [jruby,truffleruby] `bundle exec puma -w 3 -C config/puma.rb` runs Puma in cluster mode with 3 forked worker(s): JRuby and TruffleRuby cannot fork, so Puma stops at boot there ("worker mode not supported"). Start it without `-w` there: one process with threads.
            Procfile:2 warning lanes.forking-process [jruby,truffleruby] `resque-pool` forks a pool of Resque worker processes: JRuby and TruffleRuby cannot fork. There, start Resque workers as processes of their own (`rake resque:work`: where Ruby cannot fork, a Resque worker performs each job in its own process instead of a forked child).
            Procfile:3 warning lanes.forking-process [jruby,truffleruby] Solid Queue's supervisor forks its workers and dispatchers by default: JRuby and TruffleRuby cannot fork. Run it in async mode there (`bin/jobs --mode async` or `SOLID_QUEUE_SUPERVISOR_MODE=async`): threads in one process.
            Procfile:6 warning lanes.forking-process [jruby,truffleruby] `delayed_job start` daemonizes its workers with fork (the daemons gem): JRuby and TruffleRuby cannot fork. There, run `bin/delayed_job run` or `rake jobs:work` in the foreground.
            Procfile:8 warning lanes.forking-process [jruby,truffleruby] `good_job start --daemonize` detaches with `Process.daemon`, which JRuby does not have and TruffleRuby cannot do (it forks). There, run `good_job start` in the foreground."#]],
    );
}

#[test]
fn the_solid_queue_puma_plugin() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /config/puma.rb
            plugin :solid_queue if ENV["SOLID_QUEUE_IN_PUMA"]
            "#
        ),
        expect![[r#"
            config/puma.rb:1 warning lanes.forking-process [jruby,truffleruby] Puma's Solid Queue plugin (loaded `if ENV["SOLID_QUEUE_IN_PUMA"]`) forks Solid Queue's supervisor out of Puma, and the supervisor forks its workers: JRuby and TruffleRuby cannot fork. Add `solid_queue_mode :async` to run them as threads in Puma's process there."#]],
    );
    lanes(&format!("{ROUTES}\n#- /config/puma.rb\nplugin :solid_queue\nsolid_queue_mode :async\n"), expect![[""]]);
}

#[test]
fn solid_queue_forks_only_where_the_bundle_has_it_and_async_mode_needs_1_3() {
    let app = |version: &str| {
        format!(
            "{ROUTES}\n#- /Procfile\njobs: bin/jobs\n#- /config/puma.rb\nplugin :solid_queue\n#- /Gemfile.lock\nGEM\n  specs:\n    solid_queue ({version})\n\nPLATFORMS\n  ruby\n  java\n\nDEPENDENCIES\n  solid_queue\n"
        )
    };
    lanes(
        &app("1.2.4"),
        expect![[r#"
            Procfile:1 warning lanes.forking-process [jruby,truffleruby] Solid Queue's supervisor forks its workers and dispatchers by default: JRuby and TruffleRuby cannot fork. Solid Queue 1.3.0 and later have an async mode (threads in one process); this app's 1.2.4 has none: upgrade it, then run it in async mode there (`bin/jobs --mode async` or `SOLID_QUEUE_SUPERVISOR_MODE=async`): threads in one process.
            config/puma.rb:1 warning lanes.forking-process [jruby,truffleruby] Puma's Solid Queue plugin forks Solid Queue's supervisor out of Puma, and the supervisor forks its workers: JRuby and TruffleRuby cannot fork. Solid Queue 1.3.0 and later have an async mode (threads in one process); this app's 1.2.4 has none: upgrade it, then add `solid_queue_mode :async` to run them as threads in Puma's process there."#]],
    );
    lanes(
        &app("1.3.0"),
        expect![[r#"
            Procfile:1 warning lanes.forking-process [jruby,truffleruby] Solid Queue's supervisor forks its workers and dispatchers by default: JRuby and TruffleRuby cannot fork. Run it in async mode there (`bin/jobs --mode async` or `SOLID_QUEUE_SUPERVISOR_MODE=async`): threads in one process.
            config/puma.rb:1 warning lanes.forking-process [jruby,truffleruby] Puma's Solid Queue plugin forks Solid Queue's supervisor out of Puma, and the supervisor forks its workers: JRuby and TruffleRuby cannot fork. Add `solid_queue_mode :async` to run them as threads in Puma's process there."#]],
    );
    // Not in the bundle: the generated `plugin :solid_queue` loads nothing.
    lanes(
        &format!(
            "{ROUTES}\n#- /config/puma.rb\nplugin :solid_queue if ENV[\"SOLID_QUEUE_IN_PUMA\"]\n#- /Gemfile.lock\nGEM\n  specs:\n    puma (6.6.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  puma\n"
        ),
        expect![
            "Gemfile.lock:5 warning lanes.lockfile-without-java [jruby] PLATFORMS lists no `java`, and `puma` ships separate JVM builds: JRuby's Bundler re-resolves this lockfile to pick them, rewriting it in place. Run `bundle lock --add-platform java`."
        ],
    );
}

#[test]
fn code_that_assumes_a_runtime() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /app/models/export.rb
            class Export < ApplicationRecord
              def self.registry
                @registry ||= {{}}
              end

              def self.attribute(name)
                define_method(name) {{ @value ||= 1 }}
              end

              def run
                pid = fork {{ write }}
                Process.wait(pid)
                ObjectSpace.each_object(Class) {{ }}
                ObjectSpace.each_object(Export) {{ }}
                Dir.chdir("/tmp") {{ write }}
                github.fork
              end
            end
            #- /lib/tasks/build.rake
            task :build do
              Dir.chdir("vendor") {{ sh "make" }}
            end
            #- /test/test_helper.rb
            class ActiveSupport::TestCase
              parallelize(workers: :number_of_processors)
            end
            #- /test/threads_helper.rb
            class ThreadedCase < ActiveSupport::TestCase
              parallelize(workers: 4, with: :threads)
            end
            #- /test/one_helper.rb
            class OneCase < ActiveSupport::TestCase
              parallelize(workers: 1)
            end
            "#
        ),
        expect![[r#"
            app/models/export.rb:3 info lanes.shared-state [jruby,truffleruby] `Export.registry` memoises `@registry` with `||=` on the class or module itself (not on an instance): on JRuby and TruffleRuby two threads can both compute it and one result is dropped. Harmless when the value is the same for every caller and never changed in place; otherwise guard it with a Mutex or compute it at boot.
            app/models/export.rb:11 warning lanes.fork-call [jruby,truffleruby] `fork` forks the process: JRuby and TruffleRuby cannot fork (it raises NotImplementedError there). Use a thread or a separate process started by the supervisor, or check `Process.respond_to?(:fork)` first.
            app/models/export.rb:14 warning lanes.object-space [jruby] `ObjectSpace.each_object` over `Export`: JRuby disables ObjectSpace by default and raises here (only `Class` and `Module` work); `-X+O` turns it on at a cost to every allocation. Keep a registry of the objects you need instead.
            app/models/export.rb:15 info lanes.shared-state [jruby,truffleruby] `Dir.chdir` changes the working folder of the whole process: where it runs among real threads (a server on JRuby or TruffleRuby), every other thread's relative paths move with it. Pass absolute paths (or `chdir:` to a subprocess) instead.
            test/test_helper.rb:2 warning lanes.parallel-test-processes [jruby,truffleruby] `parallelize` forks test processes (Rails' default `with: :processes`), and Rails does not fall back where Ruby cannot fork: on JRuby and TruffleRuby, where a suite above the parallelization threshold (Rails 7.0 and later: 50 tests by default; before, every run) forks, the suite stops at the fork. Add `with: :threads` when `!Process.respond_to?(:fork)`, as Rails generates on those runtimes."#]],
    );
}

const GEMFILE: &str = r#"
    #- /Gemfile
    source "https://rubygems.org"
    gem "rails"
    gem "sqlite3"
    gem "pg"
    gem "mysql2", platforms: :ruby
    gem "puma"
    group :development, :test do
      gem "byebug"
    end
    platforms :jruby do
      gem "activerecord-jdbcsqlite3-adapter"
    end
"#;

#[test]
fn gems_on_the_jvm_and_on_truffleruby() {
    lanes(
        &format!(
            r#"{ROUTES}{GEMFILE}
            #- /Gemfile.lock
            GEM
              remote: https://rubygems.org/
              specs:
                actioncable (8.0.2)
                  nio4r (~> 2.0)
                  websocket-driver (>= 0.6.1)
                byebug (12.0.0)
                mysql2 (0.5.6)
                nio4r (2.7.3)
                nokogiri (1.18.9-x86_64-linux-gnu)
                  racc (~> 1.4)
                pg (1.6.2)
                pg (1.6.2-x86_64-linux)
                puma (6.6.0)
                  nio4r (~> 2.0)
                racc (1.8.1)
                rails (8.0.2)
                  actioncable (= 8.0.2)
                  nokogiri (>= 1.6)
                sqlite3 (2.9.6-x86_64-linux-gnu)
                unf (0.1.4)
                  unf_ext
                unf_ext (0.0.9.1)
                websocket-driver (0.8.0)

            PLATFORMS
              x86_64-linux

            DEPENDENCIES
              activerecord-jdbcsqlite3-adapter
              byebug
              mysql2
              pg
              puma
              rails
              sqlite3
              unf

            BUNDLED WITH
               2.6.2
            "#
        ),
        expect![[r#"
            Gemfile:3 warning lanes.cext-lock [truffleruby] `sqlite3` 2.9.6 builds a C extension that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock, so threads serving requests take turns in every call (Campfire's room page: 2.5× slower locked than unlocked under load; single-threaded the lock costs about 3%, so a benchmark hides it). `--experimental-options --cexts-lock=false` lifts the lock for every extension at once: only when each one is safe to run concurrently.
            Gemfile:3 info lanes.no-jvm-build [jruby] `sqlite3` 2.9.6 builds a C extension and has no JVM build: JRuby cannot install or load it. The JVM tree Roundhouse emits swaps it for jdbc-sqlite3 on its own; to run this app itself on JRuby, use activerecord-jdbcsqlite3-adapter under `platforms :jruby`.
            Gemfile:4 warning lanes.no-jvm-build [jruby] `pg` 1.6.2 builds a C extension and has no JVM build: JRuby cannot install or load it. This app's own bundle does not install there (the JVM tree Roundhouse emits has a Gemfile of its own): use activerecord-jdbcpostgresql-adapter on JRuby (under `platforms :jruby`), and keep `pg` to `platforms :ruby`.
            Gemfile:5 warning lanes.cext-lock [truffleruby] `mysql2` 0.5.6 builds a C extension that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock, so threads serving requests take turns in every call (Campfire's room page: 2.5× slower locked than unlocked under load; single-threaded the lock costs about 3%, so a benchmark hides it). `--experimental-options --cexts-lock=false` lifts the lock for every extension at once: only when each one is safe to run concurrently.
            Gemfile:8 info lanes.no-jvm-build [jruby] `byebug` 12.0.0 builds a C extension and has no JVM build: JRuby cannot install or load it. It is in the development and test groups only: leave them out of a JRuby install (`BUNDLE_WITHOUT=development:test`), or keep `byebug` to `platforms :ruby`.
            Gemfile.lock:9 warning lanes.cext-lock [truffleruby] `nio4r` 2.7.3 (needed by `actioncable`, `puma`) builds a C extension that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock, so threads serving requests take turns in every call (Campfire's room page: 2.5× slower locked than unlocked under load; single-threaded the lock costs about 3%, so a benchmark hides it). `--experimental-options --cexts-lock=false` lifts the lock for every extension at once: only when each one is safe to run concurrently.
            Gemfile.lock:24 warning lanes.cext-lock [truffleruby] `websocket-driver` 0.8.0 (needed by `actioncable`) builds a C extension that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock, so threads serving requests take turns in every call (Campfire's room page: 2.5× slower locked than unlocked under load; single-threaded the lock costs about 3%, so a benchmark hides it). `--experimental-options --cexts-lock=false` lifts the lock for every extension at once: only when each one is safe to run concurrently.
            Gemfile.lock:26 warning lanes.lockfile-without-java [jruby] PLATFORMS lists no `java`, and `nio4r`, `nokogiri`, `puma`, `racc`, `websocket-driver` ship separate JVM builds: JRuby's Bundler re-resolves this lockfile to pick them, rewriting it in place (in frozen or deployment mode it stops instead). Run `bundle lock --add-platform java`.
            Gemfile.lock:26 warning lanes.platform-only-lockfile [truffleruby] PLATFORMS lists no `ruby`, and `nokogiri`, `sqlite3` resolve only to precompiled platform variants. TruffleRuby's Bundler installs only source (`ruby`) variants, so it re-resolves this lockfile and rewrites it in place; the other runtime's next `bundle exec` then re-resolves again (Campfire's died with "You have already activated openssl"). Run `bundle lock --add-platform ruby`, or give TruffleRuby a lockfile of its own."#]],
    );
}

#[test]
fn a_lockfile_ready_for_both() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /Gemfile
            gem "puma"
            gem "pg", platforms: :ruby
            #- /Gemfile.lock
            GEM
              specs:
                nio4r (2.7.4)
                nio4r (2.7.4-java)
                pg (1.6.2)
                puma (6.6.0)
                  nio4r (~> 2.0)
                puma (6.6.0-java)
                  nio4r (~> 2.0)

            PLATFORMS
              java
              ruby

            DEPENDENCIES
              pg
              puma
            "#
        ),
        expect![""],
    );
}

#[test]
fn gems_the_gemfile_keeps_off_jruby() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /Gemfile
            gem "rails"
            group :development, :test do
              gem "debug", platforms: %i[ mri windows ]
              gem "byebug", platforms: :mri
              gem "pry-byebug"
            end
            group :mysql, optional: true do
              gem "mysql2"
            end
            #- /Gemfile.lock
            GEM
              specs:
                byebug (11.1.3)
                debug (1.11.0)
                mysql2 (0.5.6)
                pry-byebug (3.10.1)
                  byebug (~> 11.0)
                rails (8.0.2)

            PLATFORMS
              java
              ruby

            DEPENDENCIES
              byebug
              debug
              mysql2
              pry-byebug
              rails
            "#
        ),
        expect![[r#"
            Gemfile.lock:3 info lanes.no-jvm-build [jruby] `byebug` 11.1.3 (the Gemfile keeps it off JRuby, but `pry-byebug` needs it there) builds a C extension and has no JVM build: JRuby cannot install or load it. It is in the development and test groups only: leave them out of a JRuby install (`BUNDLE_WITHOUT=development:test`), or keep `byebug` to `platforms :ruby`."#]],
    );
}

#[test]
fn what_the_app_s_own_files_do_not_decide_is_said_as_such() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /Gemfile
            gem "rails", "~> 6.1"
            gem "pg", "~> 1.1", if_true(ENV["DATABASE_ADAPTER"] == "postgresql")
            #- /Gemfile.lock
            GEM
              specs:
                activesupport (6.1.3.2)
                pg (1.1.4)
                rails (6.1.3.2)
                  activesupport (= 6.1.3.2)

            PLATFORMS
              java
              ruby

            DEPENDENCIES
              pg (~> 1.1)
              rails (~> 6.1)
            #- /test/test_helper.rb
            class ActiveSupport::TestCase
              parallelize(workers: :number_of_processors)
            end
            #- /app/models/spree/order/checkout.rb
            module Spree
              class Order
                module Checkout
                  def self.included(klass)
                    klass.class_eval do
                      def self.checkout_flow(&block)
                        @checkout_flow = block
                      end
                    end
                  end
                end
              end
            end
            "#
        ),
        expect![[r#"
            app/models/spree/order/checkout.rb:7 info lanes.shared-state [jruby,truffleruby] `self.checkout_flow` writes `@checkout_flow` on the class or module itself (not on an instance): on JRuby and TruffleRuby every thread shares it, with no lock. Harmless when the value is the same for every caller and never changed in place; otherwise guard it with a Mutex or compute it at boot.
            test/test_helper.rb:2 warning lanes.parallel-test-processes [jruby,truffleruby] `parallelize` forks test processes (Rails' default `with: :processes`), and Rails does not fall back where Ruby cannot fork: on JRuby and TruffleRuby, where Rails 6.1.3.2 forks for every run with more than one worker, the suite stops at the fork. Add `with: :threads` when `!Process.respond_to?(:fork)`, as Rails generates on those runtimes."#]],
    );
}

#[test]
fn a_memory_store_under_forked_workers() {
    lanes(
        &format!(
            r#"{ROUTES}
            #- /config/puma.rb
            workers Integer(ENV.fetch("WEB_CONCURRENCY", 2)) if Process.respond_to?(:fork)
            #- /config/environments/production.rb
            Rails.application.configure do
              config.cache_store = :memory_store, {{ size: 64.megabytes }}
            end
            #- /config/environments/development.rb
            Rails.application.configure do
              config.cache_store = :memory_store
            end
            "#
        ),
        expect![[
            r#"config/environments/production.rb:2 warning lanes.forked-state [ruby] `:memory_store` is kept in each Puma worker, and `workers Integer(ENV.fetch("WEB_CONCURRENCY", 2))` (config/puma.rb:1) forks workers: an entry one worker writes or deletes is not seen by the others, so they serve stale or different data. Use a store the workers share (`:solid_cache_store`, `:redis_cache_store`, `:mem_cache_store`, or `:file_store` on one host), or run one process with threads."#
        ]],
    );
    // One process: nothing to share.
    lanes(
        &format!(
            "{ROUTES}\n#- /config/puma.rb\nworkers ENV.fetch(\"WEB_CONCURRENCY\", 0)\n#- /config/environments/production.rb\nRails.application.configure do\n  config.cache_store = :memory_store\nend\n"
        ),
        expect![[""]],
    );
}
