// The HTML report's filters, inlined into the page (which fetches nothing).
(function () {
  var level = document.getElementById('level-filter');
  var verdict = document.getElementById('verdict-filter');
  function apply() {
    var shown = 0, total = 0;
    document.querySelectorAll('section.operation').forEach(function (section) {
      var visible = 0;
      section.querySelectorAll('tr.result').forEach(function (row) {
        total += 1;
        var v = row.dataset.verdict;
        var okLevel = !level.value || row.dataset.level === level.value;
        var okVerdict = !verdict.value || (verdict.value === 'problems' ? v !== 'passed' : v === verdict.value);
        row.hidden = !(okLevel && okVerdict);
        if (!row.hidden) { visible += 1; }
      });
      section.hidden = visible === 0;
      shown += visible;
    });
    document.getElementById('shown').textContent = shown + ' of ' + total + ' results shown';
  }
  // Sortable tables: a click on a heading sorts by that column, again reverses it.
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('th').forEach(function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var numeric = th.dataset.type === 'number';
        var dir = th.dataset.dir === 'asc' ? -1 : 1;
        th.dataset.dir = dir === 1 ? 'asc' : 'desc';
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          return dir * (numeric ? (parseFloat(x) - parseFloat(y)) : x.localeCompare(y));
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  level.addEventListener('change', apply);
  verdict.addEventListener('change', apply);
  apply();
  document.body.dataset.ready = 'true';
})();
