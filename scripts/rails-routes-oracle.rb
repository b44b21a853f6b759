#!/usr/bin/env ruby
# The route table Rails itself computes for a routes file, printed as `bin/rails routes` prints it.
# Needs only Debian's ruby-actionpack (ActionDispatch 6.1): no app, no Bundler.
#
#   ruby scripts/rails-routes-oracle.rb tests/fixtures/routes/resources.rb
#   ruby scripts/rails-routes-oracle.rb --app ~/apps/redmine [--json]
#
# The first form reads a corpus file: the block of its `routes.draw`, with the mounted apps below.
# The second reads a real app's `config/routes.rb` whole, as `bin/rails routes` does in development:
# constants the app or its gems define are stand-ins (an `ALL_CAPS` one is a pattern that inspects as
# its name, an `…::Engine` an isolated engine, anything else a class that answers every call with
# itself), `Rails.env` is development, and a DSL method of a gem (`use_doorkeeper`, `devise_for`) is
# skipped and named on stderr. `--json` prints one object per route (name, verb, path, reqs).
#
# Differences from Rails 8 that the output irons out: Ruby 3.4 (Rails 8's Ruby) inspects hashes as
# `{format: :json}` where Ruby 3.1 printed `{:format=>:json}`.
# An app whose routes call `devise_for` is drawn with Devise's own router (Debian's ruby-devise),
# loaded first: it brings the Rails it needs.
DEVISE_APP = ARGV.include?("--app") &&
  File.read(File.join(ARGV.reject { |a| a.start_with?("--") }.first, "config", "routes.rb")).include?("devise_for")
require "devise" if DEVISE_APP
require "action_dispatch"
require "action_dispatch/routing/inspector"
require "json"

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

def underscore(name) = name.gsub("::", "/").gsub(/([A-Z\d]+)([A-Z][a-z])/, '\1_\2').gsub(/([a-z\d])([A-Z])/, '\1_\2').downcase

# --app: stand-ins for what the app and its gems define.
module OracleStubs
  # A pattern constant (`Patterns::ROUTE_PATTERN`): matches a segment, inspects as its name.
  class Pattern < Regexp
    def initialize(name)
      super("[^/.?]+")
      @name = name
    end

    def inspect = @name
  end

  # Answers every call with itself, so `Redmine::Plugin.directory.glob("*").each { … }` draws nothing.
  module Answering
    def method_missing(name, *_args)
      name.to_s.start_with?("to_") ? super : self
    end

    def respond_to_missing?(name, _private = false) = !name.to_s.start_with?("to_")
    def matches?(_request) = true
    def call(_env) = [200, {}, []]
    def const_missing(name) = OracleStubs.define(self, name)
  end

  def self.define(parent, name)
    full = parent.equal?(Object) ? name.to_s : "#{parent.name}::#{name}"
    value =
      if name.to_s.match?(/\A[A-Z][A-Z\d]*_[A-Z\d_]*\z/) || name.to_s.match?(/\A[A-Z]{5,}\z/)
        Pattern.new(full)
      elsif name == :Application
        # `OpenStreetMap::Application.routes.draw`: the app itself.
        APPLICATION
      elsif name == :Engine
        engine_name = underscore(parent.name).tr("/", "_")
        Class.new(Rails::Engine) do
          define_singleton_method(:railtie_name) { engine_name }
          define_singleton_method(:call) { |_env| [200, {}, []] }
          define_singleton_method(:routes) { @routes ||= ActionDispatch::Routing::RouteSet.new }
        end
      else
        Class.new { extend Answering }
      end
    parent.const_set(name, value)
  end

  # `Rails.env` in development, as `bin/rails routes` runs.
  ENV_NAME = Object.new
  def ENV_NAME.method_missing(name, *_args)
    name.end_with?("?") ? %i[development? local?].include?(name) : super
  end

  def ENV_NAME.respond_to_missing?(name, _private = false) = name.end_with?("?")
  def ENV_NAME.to_s = "development"

  # `Rails.application`: its routes are the set being drawn; its config answers nil.
  APPLICATION = Object.new
  CONFIG = Object.new
  def CONFIG.method_missing(*) = nil
  def CONFIG.respond_to_missing?(*) = true
  def APPLICATION.config = CONFIG
  def APPLICATION.routes = $oracle_set
end

module Rails
  def self.env = OracleStubs::ENV_NAME
end

mode_app = ARGV.delete("--app")
json = ARGV.delete("--json")
set = ActionDispatch::Routing::RouteSet.new

if mode_app
  app = File.expand_path(ARGV.fetch(0))
  routes_file = File.join(app, "config", "routes.rb")
  $oracle_set = set
  set.draw_paths = [File.join(app, "config", "routes")]
  def Object.const_missing(name) = OracleStubs.define(Object, name)
  module Rails
    def self.application = OracleStubs::APPLICATION
    def self.root = Pathname.new(ARGV.fetch(0))
  end
  # A gem's DSL method: named, skipped with its block.
  ActionDispatch::Routing::Mapper.class_eval do
    def method_missing(name, *_args, &_block)
      warn "skipped: #{name}"
      nil
    end

    def respond_to_missing?(*) = false
  end
  require "pathname"
  # A gem the routes file requires (`sidekiq/web`) is not here: its constants are stand-ins.
  module Kernel
    alias_method :oracle_require, :require
    def require(name)
      oracle_require(name)
    rescue LoadError
      false
    end
  end
  if DEVISE_APP
    # The app's models as Devise sees them: each `devise` call runs Devise's own `Devise::Models`
    # on a stand-in base class that answers every other class macro (`has_many`, `validates`).
    Devise.secret_key = "oracle"
    # Warden's middleware is set up by Devise's engine when the app boots: no route depends on it.
    def Devise.configure_warden! = nil
    unless defined?(::OmniAuth)
      module ::OmniAuth
        CONFIG = Struct.new(:path_prefix).new
        def self.config = CONFIG
      end
    end
    class ::ApplicationRecord
      extend Devise::Models
      # Every other class macro answers nil; only the validations Devise's `:validatable` asks
      # for answer `respond_to?` (a base that answered every name would shadow Devise's settings).
      def self.method_missing(*) = nil
      def self.respond_to_missing?(name, _private = false) = name.to_s.start_with?("validates_")
      # A stand-in constant is a class: including one (a gem's concern) adds nothing.
      def self.include(*modules) = super(*modules.select { |m| m.instance_of?(Module) })
      def self.extend(*modules) = super(*modules.select { |m| m.instance_of?(Module) })
    end
    # A setting of another Devise version (`config.responder…`) is a stand-in.
    def Devise.method_missing(*) = Class.new { extend OracleStubs::Answering }
    def Devise.respond_to_missing?(*) = true
    initializer = File.join(app, "config", "initializers", "devise.rb")
    load initializer if File.exist?(initializer)
    # The models that call `devise`; one that cannot load is named on stderr.
    Dir[File.join(app, "app", "models", "**", "*.rb")].sort.each do |model|
      next unless File.read(model).match?(/^\s*devise[\s(]/)
      begin
        load model
      rescue StandardError, ScriptError => e
        warn "model not loaded: #{model}: #{e.message.lines.first}"
      end
    end
  end
  load routes_file
else
  routes_file = File.expand_path(ARGV.fetch(0))
  set.draw_paths = [File.join(File.dirname(routes_file), File.basename(routes_file, ".rb"))]
  text = File.read(routes_file)
  # An engine's own routes (`Billing::Engine.routes.draw`): `isolate_namespace` scopes its controllers.
  if (engine = text[/([\w:]+)::Engine\.routes\.draw/, 1])
    set.default_scope = { module: underscore(engine) }
  end
  # What stands before the draw block (constants the routes use) runs first, at the top level.
  prelude = text[/\A.*?(?=^[^\n]*routes\.draw do\n)/m] || ""
  TOPLEVEL_BINDING.eval(prelude, routes_file)
  source = text.sub(/\A.*?routes\.draw do\n/m, "").sub(/end\s*\z/, "")
  set.draw { instance_eval(source, routes_file, prelude.count("\n") + 2) }
end

inspector = ActionDispatch::Routing::RoutesInspector.new(set.routes)
routes = inspector.send(:collect_routes, set.routes.routes)
routes.each { |r| r[:reqs] = r[:reqs].gsub(/:(\w+)=>/, '\1: ') }
if json
  # The two halves of `reqs`: the patterns the path's segments must match and the route's defaults,
  # each value inspected (controller and action left out, as the table leaves them out).
  halves = set.routes.routes.reject(&:internal).map do |route|
    inspected = ->(hash) { hash.except(:controller, :action).reject { |_, v| v == /.+?/ }.transform_keys(&:to_s).transform_values(&:inspect) }
    [inspected.(route.path.requirements), inspected.(route.defaults)]
  end
  routes.zip(halves).each do |r, (requirements, defaults)|
    row = r.slice(:name, :verb, :path, :reqs)
    row[:requirements] = requirements unless requirements.empty?
    row[:defaults] = defaults unless defaults.empty?
    puts JSON.generate(row)
  end
else
  formatter = ActionDispatch::Routing::ConsoleFormatter::Sheet.new
  formatter.header(routes)
  formatter.section(routes)
  puts formatter.result
end
