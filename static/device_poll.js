/*
 * The demo device page (/demo/device): polls by reloading `?poll=1` at the interval the provider
 * gave (RFC 8628 §3.2 interval, raised on slow_down). Without this script the "Check now" link
 * does the same by hand.
 */
(function () {
  "use strict";
  var link = document.getElementById("device-poll");
  if (!link) return;
  var seconds = Number(link.dataset.interval) || 5;
  setTimeout(function () {
    window.location.assign(link.href);
  }, seconds * 1000);
})();
