#!/usr/bin/env python3
"""Writes a synthetic Rails app for benchmarks in the shapes real apps have: N resources, each with a
model, a controller and six templates (index, show, new, edit, a form partial rendering a shared
partial, a record partial); most of them in namespaces, every third nested two levels deep (the
third shallow), every fifth with `only:`; model and controller concerns (`included`,
`class_methods`) every tenth resource; a schema of at most 500 tables, the models past it STI
subclasses; a layout, shared partials and lib files. N=250 gives ~2,000 files, N=625 ~5,000,
N=2500 ~20,000.

    python3 scripts/gen-synthetic-app.py 250 target/synthetic-app
"""
import os
import sys


def model(name, cls, other):
    lines = [f"class {cls} < ApplicationRecord"]
    lines.append(f"  belongs_to :{other}, optional: true")
    lines.append(f"  has_many :{name}_notes, dependent: :destroy")
    lines.append("  has_one_attached :cover")
    lines.append("  enum :state, { draft: 0, published: 1, archived: 2 }, default: :draft")
    lines.append("  validates :title, presence: true, length: { maximum: 120 }")
    lines.append("  validates :position, numericality: { only_integer: true }, allow_nil: true")
    lines.append("  before_validation :normalize_title")
    lines.append("  after_create_commit :announce")
    lines.append("  scope :recent, -> { order(created_at: :desc) }")
    lines.append("  scope :visible, -> { where(state: :published) }")
    lines.append(f"  delegate :title, to: :{other}, prefix: true, allow_nil: true")
    lines.append("")
    for i in range(8):
        lines.append(f"  def helper_{i}(value = {i})")
        lines.append(f"    return nil if value.nil?")
        lines.append(f"    [title, value, {i}].compact.join(\"-\")")
        lines.append("  end")
        lines.append("")
    lines.append("  private")
    lines.append("")
    lines.append("  def normalize_title")
    lines.append("    self.title = title.to_s.squish")
    lines.append("  end")
    lines.append("")
    lines.append("  def announce")
    lines.append(f"    Rails.logger.info(\"{cls} #{{id}} created\")")
    lines.append("  end")
    lines.append("end")
    return "\n".join(lines) + "\n"


def controller(name, plural, cls):
    return f"""class {cls}sController < ApplicationController
  before_action :set_{name}, only: %i[show edit update destroy]

  def index
    @{plural} = {cls}.visible.recent
  end

  def show
  end

  def new
    @{name} = {cls}.new
  end

  def create
    @{name} = {cls}.new({name}_params)
    if @{name}.save
      redirect_to {name}_path(@{name}), notice: "Created."
    else
      render :new, status: :unprocessable_entity
    end
  end

  def update
    if @{name}.update({name}_params)
      redirect_to @{name}, notice: "Updated."
    else
      render :edit, status: :unprocessable_entity
    end
  end

  def destroy
    @{name}.destroy!
    redirect_to {plural}_path, status: :see_other
  end

  def publish
    @{name}.update!(state: :published)
    redirect_to {name}_path(@{name})
  end

  private

  def set_{name}
    @{name} = {cls}.find(params[:id])
  end

  def {name}_params
    params.expect({name}: [:title, :position])
  end
end
"""


TABLES = 500  # A big real schema's size; resources past it are STI subclasses of earlier models.
NAMESPACES = ["admin", "api", "billing", "reports"]


def concern(k):
    return f"""module Trackable{k}
  extend ActiveSupport::Concern

  included do
    has_many :events, as: :subject, dependent: :destroy
    scope :tracked_{k}, -> {{ where.not(updated_at: nil) }}
    before_save :touch_tracking_{k}
  end

  class_methods do
    def tracked_since_{k}(time)
      where("updated_at > ?", time)
    end
  end

  def tracking_label_{k}
    "#{{self.class.name}}-{k}-#{{id}}"
  end

  private

  def touch_tracking_{k}
    self.updated_at ||= Time.current
  end
end
"""


def controller_concern(k):
    return f"""module Paginated{k}
  extend ActiveSupport::Concern

  included do
    before_action :set_page_{k}
    helper_method :page_{k}
  end

  def page_{k}
    @page_{k} ||= [params[:page].to_i, 1].max
  end

  private

  def set_page_{k}
    page_{k}
  end
end
"""


def nested_controller(module, nested):
    actions = "\n".join(f"  def {a}\n    head :ok\n  end\n" for a in ["index", "show", "new", "create", "edit", "update", "destroy"])
    return f"class {module}{nested}Controller < ApplicationController\n{actions}end\n"


def form(name, plural):
    return f"""<%= form_with(model: {name}) do |form| %>
  <% if {name}.errors.any? %>
    <div id="error_explanation">
      <h2><%= pluralize({name}.errors.count, "error") %> prohibited this record from being saved:</h2>
      <ul><% {name}.errors.each do |error| %><li><%= error.full_message %></li><% end %></ul>
    </div>
  <% end %>
  <div><%= form.label :title %> <%= form.text_field :title %></div>
  <div><%= form.label :position %> <%= form.number_field :position %></div>
  <%= render "shared/actions", form: form, back: {plural}_path %>
<% end %>
"""


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    out = sys.argv[2] if len(sys.argv) > 2 else "target/synthetic-app"
    written = [0]

    def write(path, text):
        full = os.path.join(out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        written[0] += 1
    names = [f"widget{i}" for i in range(count)]
    concerns = max(1, count // 10)
    write("Gemfile", 'source "https://rubygems.org"\ngem "rails", "~> 8.0"\n')
    write("config/application.rb", "require \"rails/all\"\nmodule Synthetic\n  class Application < Rails::Application\n    config.load_defaults 8.0\n  end\nend\n")
    write("app/models/application_record.rb", "class ApplicationRecord < ActiveRecord::Base\n  primary_abstract_class\nend\n")
    write("app/models/event.rb", "class Event < ApplicationRecord\n  belongs_to :subject, polymorphic: true\nend\n")
    write("app/controllers/application_controller.rb", "class ApplicationController < ActionController::Base\nend\n")
    write("app/views/layouts/application.html.erb", "<!DOCTYPE html>\n<html>\n<head><title>Synthetic</title><%= csrf_meta_tags %></head>\n<body>\n<%= render \"shared/header\" %>\n<%= yield %>\n</body>\n</html>\n")
    write("app/views/shared/_header.html.erb", "<header><%= link_to \"Home\", root_path %></header>\n")
    write("app/views/shared/_actions.html.erb", "<div class=\"actions\"><%= form.submit %> <%= link_to \"Back\", back %></div>\n")
    for k in range(concerns):
        write(f"app/models/concerns/trackable{k}.rb", concern(k))
        write(f"app/controllers/concerns/paginated{k}.rb", controller_concern(k))
    # Routes: a quarter of the resources at the top, the rest in namespaces, every third one with a
    # nested resource and a shallow third level, every fifth one with only some actions.
    routes = ["Rails.application.routes.draw do", "  root \"widget0s#index\"", ""]
    by_namespace = {ns: [] for ns in NAMESPACES}
    schema = ["ActiveRecord::Schema[8.0].define(version: 2026_01_01_000000) do"]
    for i, name in enumerate(names):
        plural = name + "s"
        namespace = None if i % 4 == 0 else NAMESPACES[(i // 4) % len(NAMESPACES)]
        cls = name.capitalize()
        module = namespace.capitalize() + "::" if namespace else ""
        other = names[(i + 1) % min(count, TABLES)]
        k = i % concerns
        if i < TABLES:
            text = model(name, cls, other).replace(f"class {cls} < ApplicationRecord\n", f"class {cls} < ApplicationRecord\n  include Trackable{k}\n", 1)
            schema.append(f"  create_table \"{plural}\", force: :cascade do |t|\n    t.string \"title\", null: false\n    t.integer \"position\"\n    t.integer \"state\", default: 0, null: false\n    t.string \"type\"\n    t.references :{other}, foreign_key: true\n    t.timestamps\n  end\n")
        else:
            base = names[i % TABLES].capitalize()
            text = f"class {cls} < {base}\n  validates :position, presence: true\n\n  def label\n    [title, position].join(\" \")\n  end\nend\n"
        write(f"app/models/{name}.rb", text)
        path = f"{namespace}/{plural}" if namespace else plural
        text = controller(name, plural, cls)
        if namespace:
            text = text.replace(f"{name}_path", f"{namespace}_{name}_path").replace(f"{plural}_path", f"{namespace}_{plural}_path")
        text = text.replace(f"class {cls}sController < ApplicationController\n", f"class {module}{cls}sController < ApplicationController\n  include Paginated{k}\n", 1)
        write(f"app/controllers/{path}_controller.rb", text)
        write(f"app/views/{path}/index.html.erb", f"<h1>{cls}s</h1>\n<% @{plural}.each do |{name}| %>\n  <%= render \"{name}\", {name}: {name} %>\n<% end %>\n")
        write(f"app/views/{path}/show.html.erb", f"<h1><%= @{name}.title %></h1>\n<p><%= @{name}.position %></p>\n")
        write(f"app/views/{path}/_{name}.html.erb", f"<div id=\"<%= dom_id({name}) %>\">\n  <%= {name}.title %>\n  <% if {name}.published? %><span>published</span><% end %>\n</div>\n")
        write(f"app/views/{path}/_form.html.erb", form(name, f"{namespace}_{plural}" if namespace else plural))
        write(f"app/views/{path}/new.html.erb", f"<h1>New {name}</h1>\n<%= render \"form\", {name}: @{name} %>\n")
        write(f"app/views/{path}/edit.html.erb", f"<h1>Editing {name}</h1>\n<%= render \"form\", {name}: @{name} %>\n")
        options = ", only: %i[index show]" if i % 5 == 0 else ""
        indent = "    " if namespace else "  "
        if i % 3 == 0:
            block = [f"{indent}resources :{plural}{options} do", f"{indent}  member {{ patch :publish }}", f"{indent}  resources :notes, only: %i[index create] do", f"{indent}    resources :attachments, shallow: true", f"{indent}  end", f"{indent}end"]
        else:
            block = [f"{indent}resources :{plural}{options}"]
        (by_namespace[namespace] if namespace else routes).extend(block)
    for namespace in [None, *NAMESPACES]:
        module = namespace.capitalize() + "::" if namespace else ""
        folder = namespace + "/" if namespace else ""
        for nested in ["Notes", "Attachments"]:
            write(f"app/controllers/{folder}{nested.lower()}_controller.rb", nested_controller(module, nested))
    for namespace, lines in by_namespace.items():
        if lines:
            routes.extend(["", f"  namespace :{namespace} do", *lines, "  end"])
    routes.append("end")
    schema.append("end")
    write("config/routes.rb", "\n".join(routes) + "\n")
    write("db/schema.rb", "\n".join(schema) + "\n")
    for i in range(max(1, count // 20)):
        write(f"lib/synthetic/util{i}.rb", f"module Synthetic\n  class Util{i}\n    def self.call(x) = x.to_s * {i + 1}\n  end\nend\n")
    print(f"wrote a synthetic app with {count} resources ({written[0]} files) to {out}")


if __name__ == "__main__":
    main()
