# Build and run paiju against the PostgreSQL of docker-compose.yml.
# cargo-chef builds the dependencies in a layer of their own: a change to paiju's sources
# rebuilds paiju only.
FROM rust:1.95-bookworm AS chef
RUN cargo install cargo-chef --locked --version ^0.1
WORKDIR /src

FROM chef AS plan
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS build
COPY --from=plan /src/recipe.json recipe.json
RUN cargo chef cook --release --recipe-path recipe.json --bin paiju
COPY . .
RUN cargo build --release --bin paiju

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* && useradd --system paiju
COPY --from=build /src/target/release/paiju /usr/local/bin/paiju
USER paiju
ENV PAIJU_BIND=0.0.0.0:8080
EXPOSE 8080
CMD ["paiju"]
