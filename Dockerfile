# Build and run paiju against the PostgreSQL of docker-compose.yml.
FROM rust:1.95-bookworm AS build
WORKDIR /src
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
