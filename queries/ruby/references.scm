; References from Ruby code (controllers, helpers, models, and the Ruby inside templates) to names the
; index resolves elsewhere: route helpers, templates, instance variables, helper methods.
; Filtering that a query cannot express (builtin *_path helpers, a def named like a helper, an ivar
; that is assigned rather than read) happens in `rails::references`.

; Route helpers -------------------------------------------------------------------------------------

; `post_path(@post)`, `edit_admin_post_url(id: 1)`
((call
   !receiver
   method: (identifier) @route_helper.name)
 (#match? @route_helper.name "^[a-z_][a-z0-9_]*_(path|url)$"))

; `redirect_to posts_path`, `link_to "All", posts_path`, `url: posts_path`, `<%= posts_path %>`
; (only where a bare identifier is a value: a `def index_path` or a parameter is no reference)
([(argument_list (identifier) @route_helper.name)
  (pair value: (identifier) @route_helper.name)
  (assignment right: (identifier) @route_helper.name)
  (program (identifier) @route_helper.name)
  (body_statement (identifier) @route_helper.name)
  (parenthesized_statements (identifier) @route_helper.name)]
 (#match? @route_helper.name "^[a-z_][a-z0-9_]*_(path|url)$"))

; Render calls --------------------------------------------------------------------------------------

; `render "form", post: @post`, `render partial: "x"`, `render :edit, status: :unprocessable_entity`
((call
   !receiver
   method: (identifier) @render.method) @render.call
 (#eq? @render.method "render"))

; Instance variables --------------------------------------------------------------------------------

; Every occurrence, and separately the ones written (`@post = …`, `@posts ||= …`): reads are the rest.
(instance_variable) @ivar.reference

(assignment left: (instance_variable) @ivar.write)

(operator_assignment left: (instance_variable) @ivar.write)

; Helper calls --------------------------------------------------------------------------------------

; Receiver-less calls: `link_to`, `form_with`, `t`, app helpers.
(call
  !receiver
  method: (identifier) @helper.name)
