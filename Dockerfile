# syntax=docker/dockerfile:1
# The service image: the API (the default command) and the ingestion worker.
#
#   docker build -t carbon-docs .
#   docker run -p 3000:3000 -e HOST=0.0.0.0 -v carbon-data:/data carbon-docs
#   docker run --rm -v carbon-data:/data carbon-docs node --import tsx ingest/main.ts --all     # the worker

FROM node:20-slim AS deps
# OCR needs nothing from apt: tesseract.js (WebAssembly) and its English model, and @napi-rs/canvas (prebuilt for
# linux-x64 glibc, which this Debian image is) that pdf.js renders pages with, all come from npm.
# Compilers only for native modules that have no prebuilt binary for this platform; not kept in the final image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# The lockfile was made with npm 11, which runs install scripts only for the packages package.json allowScripts
# names (better-sqlite3, onnxruntime-node, sharp, ...), exactly as on developers' machines and in CI.
RUN npm install -g npm@11.19.1 --no-audit --no-fund
WORKDIR /app
# onnxruntime-node would otherwise try to download CUDA binaries at install time.
ENV ONNXRUNTIME_NODE_INSTALL_CUDA=skip
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && node -e "const D=require('better-sqlite3'); const v=require('sqlite-vec'); const d=new D(':memory:'); v.load(d); console.log('sqlite-vec', d.prepare('select vec_version() v').get().v)" \
 && node -e "const u=require('usearch'); console.log('usearch', typeof u.exactSearch)" \
 && node -e "require('@napi-rs/canvas'); require('tesseract.js'); require.resolve('@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz'); console.log('ocr: canvas, tesseract.js and the English model present')"

FROM node:20-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && npm install -g npm@11.19.1 --no-audit --no-fund \
 && mkdir -p /data /models \
 && chown node:node /data /models
WORKDIR /app
ENV NODE_ENV=production \
    DATA_DIR=/data \
    MODELS_DIR=/models \
    HOST=0.0.0.0 \
    PORT=3000 \
    ONNXRUNTIME_NODE_INSTALL_CUDA=skip
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json package-lock.json tsconfig.json ./
COPY --chown=node:node src ./src
COPY --chown=node:node ingest ./ingest
COPY --chown=node:node scripts ./scripts
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# tini reaps children and forwards SIGTERM to node itself (no npm or shell in between, which would not pass the
# signal on), so the server drains and exits cleanly on `docker stop`.
ENTRYPOINT ["tini", "--"]
CMD ["node", "--import", "tsx", "src/main.ts"]
