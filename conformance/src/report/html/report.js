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
  level.addEventListener('change', apply);
  verdict.addEventListener('change', apply);
  apply();
  document.body.dataset.ready = 'true';
})();
