#!/usr/bin/env python3
"""Writes a synthetic Rails app for benchmarks: N resources, each with a model, a controller,
three templates, a schema table and a route; plus config and lib files. N=400 gives ~2,000 files.

    python3 scripts/gen-synthetic-app.py 400 target/synthetic-app
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

  private

  def set_{name}
    @{name} = {cls}.find(params[:id])
  end

  def {name}_params
    params.expect({name}: [:title, :position])
  end
end
"""


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    out = sys.argv[2] if len(sys.argv) > 2 else "target/synthetic-app"
    def write(path, text):
        full = os.path.join(out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    names = [f"widget{i}" for i in range(count)]
    write("Gemfile", 'source "https://rubygems.org"\ngem "rails", "~> 8.0"\n')
    write("config/application.rb", "require \"rails/all\"\nmodule Synthetic\n  class Application < Rails::Application\n    config.load_defaults 8.0\n  end\nend\n")
    write("app/models/application_record.rb", "class ApplicationRecord < ActiveRecord::Base\n  primary_abstract_class\nend\n")
    write("app/controllers/application_controller.rb", "class ApplicationController < ActionController::Base\nend\n")
    routes = ["Rails.application.routes.draw do"]
    schema = ["ActiveRecord::Schema[8.0].define(version: 2026_01_01_000000) do"]
    for i, name in enumerate(names):
        cls = name.capitalize()
        plural = name + "s"
        other = names[(i + 1) % count]
        write(f"app/models/{name}.rb", model(name, cls, other))
        write(f"app/controllers/{plural}_controller.rb", controller(name, plural, cls))
        write(f"app/views/{plural}/index.html.erb", f"<h1>{cls}s</h1>\n<% @{plural}.each do |{name}| %>\n  <%= render \"{name}\", {name}: {name} %>\n<% end %>\n<%= link_to \"New\", new_{name}_path %>\n")
        write(f"app/views/{plural}/show.html.erb", f"<h1><%= @{name}.title %></h1>\n<p><%= @{name}.position %></p>\n<%= link_to \"Edit\", edit_{name}_path(@{name}) %> | <%= link_to \"Back\", {plural}_path %>\n")
        write(f"app/views/{plural}/_{name}.html.erb", f"<div id=\"<%= dom_id({name}) %>\">\n  <%= link_to {name}.title, {name} %>\n  <% if {name}.published? %><span>published</span><% end %>\n</div>\n")
        routes.append(f"  resources :{plural} do\n    member {{ patch :publish }}\n  end")
        schema.append(f"  create_table \"{plural}\", force: :cascade do |t|\n    t.string \"title\", null: false\n    t.integer \"position\"\n    t.integer \"state\", default: 0, null: false\n    t.references :{other}, foreign_key: true\n    t.timestamps\n  end\n")
    routes.append("end")
    schema.append("end")
    write("config/routes.rb", "\n".join(routes) + "\n")
    write("db/schema.rb", "\n".join(schema) + "\n")
    for i in range(max(1, count // 20)):
        write(f"lib/synthetic/util{i}.rb", f"module Synthetic\n  class Util{i}\n    def self.call(x) = x.to_s * {i + 1}\n  end\nend\n")
    print(f"wrote a synthetic app with {count} resources to {out}")


if __name__ == "__main__":
    main()
