#!/usr/bin/env ruby
# The route table Rails itself computes for a routes file, printed as `bin/rails routes` prints it.
# Needs only Debian's ruby-actionpack (ActionDispatch 6.1): no app, no Bundler.
#
#   ruby scripts/rails-routes-oracle.rb tests/fixtures/routes/resources.rb
#
# Differences from Rails 8 that the output irons out: Ruby 3.4 (Rails 8's Ruby) inspects hashes as
# `{format: :json}` where Ruby 3.1 printed `{:format=>:json}`.
require "action_dispatch"
require "action_dispatch/routing/inspector"

# What mounted apps need to exist, with `inspect` returning their source text.
module Sidekiq
  class Web
    def self.call(_env) = [200, {}, []]
  end
end
module ActionCable
  SERVER = Object.new
  def SERVER.call(_env) = [200, {}, []]
  def SERVER.inspect = "ActionCable.server"
  def self.server = SERVER
end
module Rails
  class Railtie; end
  class Engine < Railtie; end
end

# An isolated engine, as `mount Billing::Engine, at: "/billing"` in the monorepo fixture mounts it.
module Billing
  class Engine < Rails::Engine
    def self.railtie_name = "billing"
    def self.call(_env) = [200, {}, []]
    def self.routes = (@routes ||= ActionDispatch::Routing::RouteSet.new)
    def self.inspect = "Billing::Engine"
  end
end

routes_file = File.expand_path(ARGV.fetch(0))
set = ActionDispatch::Routing::RouteSet.new
set.draw_paths = [File.join(File.dirname(routes_file), File.basename(routes_file, ".rb"))]
text = File.read(routes_file)
# An engine's own routes (`Billing::Engine.routes.draw`): `isolate_namespace` scopes its controllers.
if (engine = text[/([\w:]+)::Engine\.routes\.draw/, 1])
  set.default_scope = { module: engine.gsub("::", "/").gsub(/([a-z\d])([A-Z])/, '\1_\2').downcase }
end
source = text.sub(/\A.*?routes\.draw do\n/m, "").sub(/end\s*\z/, "")
set.draw { instance_eval(source, routes_file) }

inspector = ActionDispatch::Routing::RoutesInspector.new(set.routes)
routes = inspector.send(:collect_routes, set.routes.routes)
routes.each { |r| r[:reqs] = r[:reqs].gsub(/:(\w+)=>/, '\1: ') }
formatter = ActionDispatch::Routing::ConsoleFormatter::Sheet.new
formatter.header(routes)
formatter.section(routes)
puts formatter.result
