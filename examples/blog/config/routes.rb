Rails.application.routes.draw do
  root "posts#index"

  resource :session, only: %i[new create destroy]

  resources :posts do
    resources :comments, only: %i[create destroy]
    member do
      patch :publish
    end
    collection do
      get :drafts
    end
  end

  namespace :admin do
    resources :posts, only: %i[index destroy]
    root "posts#index"
  end

  get "about", to: "pages#about", as: :about
  get "up" => "rails/health#show", as: :rails_health_check
end
