// Support-matrix filters: by product (hide the other columns) and by dtype (keep the operators whose
// main input, or any tensor when all tensors are shown, accepts it). No network, no external code.
(function () {
  "use strict";
  var table = document.getElementById("support-matrix");
  var product = document.getElementById("filter-product");
  var dtype = document.getElementById("filter-dtype");
  var tensors = document.getElementById("filter-tensors");
  if (!table || !product || !dtype || !tensors) { return; }

  function apply() {
    var tag = product.value, wanted = dtype.value, all = tensors.checked;
    table.classList.toggle("all-tensors", all);
    var cols = table.querySelectorAll("[data-product]");
    for (var i = 0; i < cols.length; i++) {
      cols[i].hidden = tag !== "" && cols[i].getAttribute("data-product") !== tag;
    }
    var bodies = table.tBodies;
    for (var b = 0; b < bodies.length; b++) {
      var rows = bodies[b].rows, keep = wanted === "";
      for (var r = 0; r < rows.length; r++) {
        var row = rows[r];
        if (!all && !row.classList.contains("main")) { continue; }
        var cells = row.querySelectorAll("td[data-dtypes]");
        for (var c = 0; c < cells.length; c++) {
          var cell = cells[c];
          var has = wanted !== "" && (" " + cell.getAttribute("data-dtypes") + " ").indexOf(" " + wanted + " ") >= 0;
          cell.classList.toggle("match", has);
          if (has && !cell.hidden) { keep = true; }
        }
      }
      bodies[b].hidden = !keep;
    }
  }
  product.addEventListener("change", apply);
  dtype.addEventListener("change", apply);
  tensors.addEventListener("change", apply);
  apply();
}());
