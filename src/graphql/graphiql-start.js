// Loaded before the GraphiQL bundle: Monaco reads its worker addresses at start-up, and all of them
// are same-origin files, so no blob or CDN fetch is needed.
(function () {
  var base = "/_graphiql/monacoeditorwork/";
  var workers = { json: "json.worker.bundle.js", graphql: "graphql.worker..bundle.js" };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_id, label) {
      return base + (workers[label] || "editor.worker.bundle.js");
    },
  };
  document.addEventListener("DOMContentLoaded", function () {
    var options = JSON.parse(document.getElementById("graphiql-options").textContent || "{}");
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById("root"), options);
  });
})();
