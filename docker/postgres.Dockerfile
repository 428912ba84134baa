# PostgreSQL for docker/compose.yaml's cluster profile: Debian's package on
# the same debian:12-slim base as webnnmd's image (no registry needed).
#
#   podman build -f docker/postgres.Dockerfile -t webnnm-postgres .
#
# The first start makes the cluster in the volume with a role and a
# database named webnnm, the role's password from WEBNNM_PG_PASSWORD
# (required), connections from the network checked with SCRAM.
FROM debian:12-slim
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \
      postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY docker/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
ENV PGDATA=/var/lib/postgresql/data PATH=/usr/lib/postgresql/15/bin:$PATH
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=5 \
  CMD ["pg_isready", "-h", "127.0.0.1", "-p", "5432", "-U", "webnnm"]
