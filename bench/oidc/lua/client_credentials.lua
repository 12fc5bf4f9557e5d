-- POST /token, grant_type=client_credentials, client_secret_basic (BENCH_BASIC = base64 id:secret).
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic " .. os.getenv("BENCH_BASIC")
