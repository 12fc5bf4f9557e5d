-- GET /userinfo with a pre-issued access token (BENCH_TOKEN) as Bearer.
wrk.method = "GET"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
